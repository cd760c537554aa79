/**
 * Ctrl-C while `edgeval results RUN -o FILE` is writing: FILE is written through FILE.tmp-PID and
 * renamed once complete, so an interrupted download must remove the temp file rather than leave
 * it next to FILE. The CLI runs as a subprocess against a server that sends one line and then
 * waits, so the interrupt lands mid-download.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDirs } from "../../support/temp-dirs.ts";

const BIN = path.resolve(import.meta.dirname, "../../../cli/edgeval.mjs");
const tempDir = tempDirs();

describe("edgeval results interrupted mid-download", () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/x-ndjson" });
      res.write('{"result":1}\n'); // and the rest never comes
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("removes its temp file, says nothing was written, and exits 130", async () => {
    const dir = tempDir("cli-interrupt-");
    const file = path.join(dir, "results.ndjson");
    const child = spawn(process.execPath, [BIN, "results", "r1", "-o", file, "--url", url, "--token", "t"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const closed = new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    // Interrupt once the download has begun writing its temp file.
    while (!fs.readdirSync(dir).some((f) => f.startsWith("results.ndjson.tmp-"))) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGINT");
    expect(await closed).toBe(130);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(stderr).toContain(`edgeval: interrupted: nothing written to ${file}`);
  });

  it("a signal the instant the temp file exists is handled too: no temp file left, exit 130", async () => {
    // The first case waits for the temp file, then signals: on a loaded machine that signal could
    // land before the handler was installed, and Node's default ended the CLI (no exit code, the
    // temp file left). Here the CLI signals itself right after opening it, every time.
    const dir = tempDir("cli-interrupt-");
    const file = path.join(dir, "results.ndjson");
    const preload = path.join(tempDir("cli-preload-"), "signal-after-open.mjs");
    fs.writeFileSync(
      preload,
      `import fs from "node:fs";
const open = fs.openSync;
fs.openSync = (p, ...rest) => {
  const fd = open(p, ...rest);
  if (String(p).includes(".tmp-")) process.kill(process.pid, "SIGINT");
  return fd;
};
`,
    );
    const child = spawn(process.execPath, ["--import", preload, BIN, "results", "r1", "-o", file, "--url", url, "--token", "t"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    expect({ code, left: fs.readdirSync(dir) }).toEqual({ code: 130, left: [] });
    expect(stderr).toContain(`edgeval: interrupted: nothing written to ${file}`);
  });
});
