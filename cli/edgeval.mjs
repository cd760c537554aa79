#!/usr/bin/env node
// The `edgeval` command (package.json "bin"). The CLI is TypeScript run by Node's own type
// stripping (Node ≥ 22.18), the Node `npm ci` installs as node_modules/.bin/node, which
// `npx edgeval` puts first on PATH. On an older Node, say so instead of failing obscurely.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(
    `edgeval: needs Node >= 22.18 (this is ${process.version}). In this repository run it as "npx edgeval …" after "npm ci", which uses node_modules/.bin/node.`,
  );
  process.exit(2);
}
// `edgeval results RUN -o - | head`: once the reader has closed the pipe, a write fails with
// EPIPE, emitted as an unhandled 'error' event (a stack trace). The reader has what it wanted: stop quietly.
process.stdout.on("error", (err) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});
const { main } = await import("./main.ts");
process.exitCode = await main(process.argv);
