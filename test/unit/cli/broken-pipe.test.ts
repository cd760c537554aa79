/**
 * `edgeval results RUN -o - | head`: the reader closes the pipe before the export has been
 * written. The CLI stops quietly (exit 0, as the reader had what it wanted) instead of dying with
 * an unhandled EPIPE stack trace. The CLI runs as a subprocess against a server streaming a large
 * export, larger than any pipe buffer, so writes go on after the reader has gone.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = path.resolve(import.meta.dirname, "../../../cli/edgeval.mjs");

describe("edgeval writing to a pipe that closes early", () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    const line = `${JSON.stringify({ metadata: { question_id: "q".repeat(200) } })}\n`;
    server = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/x-ndjson" });
      res.end(line.repeat(40_000)); // ~8 MB
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("results -o - stops quietly when the reader closes the pipe", async () => {
    const child = spawn(process.execPath, [BIN, "results", "r1", "-o", "-", "--url", url, "--token", "t"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    // Read one chunk, then close our end, as `head -1` does.
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    expect(stderr).not.toContain("EPIPE");
    expect(stderr).not.toContain("Unhandled");
    expect(code).toBe(0);
  });
});
