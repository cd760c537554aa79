/**
 * examples/python/edgeval_example.py on bad input, as a script author meets it: a file that is
 * missing or not JSON, an --out that cannot be written, a --url without a scheme, and an error
 * page that is not edgeval's. Each is one line on stderr and exit 2 (a request refused or a usage
 * error), never a Python traceback with exit 1, which the example documents as "the run failed".
 * A run that ended other than completed exits 1, as the CLI does. No edgeval server is needed
 * (the e2e runs the example against npm run dev).
 */
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDirs } from "../../support/temp-dirs.ts";

const SCRIPT = path.resolve(import.meta.dirname, "../../../examples/python/edgeval_example.py");
const tempDir = tempDirs();

function python(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile("python3", [SCRIPT, "--token", "t", ...args], { timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 99) : 0, stdout, stderr }),
    );
  });
}

describe("the Python example on bad input", () => {
  let dir: string;
  let benchmark: string;
  let config: string;
  /** A server that answers POST /v1/judge as edgeval refuses a body, and anything else with a gateway's HTML error page. */
  let gateway: http.Server;
  let gatewayUrl: string;

  beforeAll(async () => {
    dir = tempDir("py-example-");
    benchmark = path.join(dir, "bench.json");
    config = path.join(dir, "config.json");
    fs.writeFileSync(benchmark, JSON.stringify({ name: "b", questions: [] }));
    fs.writeFileSync(config, JSON.stringify({ answering_models: [] }));
    gateway = http.createServer((req, res) => {
      if (req.url === "/v1/judge") {
        // An edgeval-shaped refusal with one issue, which its message already names.
        res.writeHead(400, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            error: {
              code: "invalid_body",
              message: "config.scael: unknown key",
              issues: [{ path: "config.scael", message: "unknown key" }],
            },
          }),
        );
        return;
      }
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>");
    });
    await new Promise<void>((resolve) => gateway.listen(0, "127.0.0.1", resolve));
    gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => gateway.close(() => resolve())));

  const expectOneLine = (r: { code: number; stderr: string }, message: string) => {
    expect(r.stderr).not.toContain("Traceback");
    expect(r.stderr.trim()).toBe(`edgeval: ${message}`);
    expect(r.code).toBe(2);
  };

  it("a missing or invalid file is named, exit 2", async () => {
    const missing = path.join(dir, "missing.json");
    expectOneLine(await python(["run", missing, "--config", config]), `cannot read ${missing}: no such file`);
    const bad = path.join(dir, "bad.json");
    fs.writeFileSync(bad, "{bad");
    const r = await python(["run", benchmark, "--config", bad]);
    expect(r.stderr).toContain(`edgeval: ${bad} is not valid JSON: `);
    expect(r.stderr).not.toContain("Traceback");
    expect(r.code).toBe(2);
    expectOneLine(await python(["judge", "--config", missing, "--output", "x"]), `cannot read ${missing}: no such file`);
  });

  it("reads a JSON file that starts with a byte order mark", async () => {
    const bom = path.join(dir, "bom.json");
    fs.writeFileSync(bom, `\uFEFF${JSON.stringify({ answering_models: [] })}`);
    // Read, then posted: the gateway's 502 is the first thing that goes wrong.
    const r = await python(["--url", gatewayUrl, "run", benchmark, "--config", bom]);
    expect(r.stderr).toContain("POST /v1/runs -> 502");
  });

  it("an --out in a directory that does not exist is refused before the run is submitted", async () => {
    const out = path.join(dir, "nope", "results.ndjson");
    // The gateway would answer any request with 502: the refusal must come first.
    expectOneLine(
      await python(["--url", gatewayUrl, "run", benchmark, "--config", config, "--out", out]),
      `cannot write ${out}: there is no directory ${path.dirname(out)}`,
    );
    expectOneLine(
      await python(["--url", gatewayUrl, "run", benchmark, "--config", config, "--out", dir]),
      `cannot write ${dir}: it is a directory`,
    );
  });

  it.each(["-1", "0", "abc", "inf"])("--poll %s is refused naming the option, before the run is submitted", async (value) => {
    // The gateway would answer a submit with 502: the refusal must come first.
    const r = await python(["--url", gatewayUrl, "run", benchmark, "--config", config, "--poll", value]);
    expect(r.stderr).toContain(`argument --poll: takes seconds >= 0.1 between status checks, e.g. 1 (got '${value}')`);
    expect(r.stderr).not.toContain("Traceback");
    expect(r.stderr).not.toContain("POST /v1/runs");
    expect(r.code).toBe(2);
  });

  it("a --url without http:// or https:// says so", async () => {
    expectOneLine(
      await python(["--url", "localhost:8787", "run", benchmark, "--config", config]),
      "localhost:8787 is not an http:// or https:// URL: give the server as e.g. http://localhost:8787 (--url, EDGEVAL_URL)",
    );
  });

  it("a --url with a user name and password is refused without printing the password", async () => {
    const r = await python(["--url", "http://admin:s3cret@127.0.0.1:8787", "run", benchmark, "--config", config]);
    expectOneLine(
      r,
      "http://***:***@127.0.0.1:8787 holds a user name and password: give the server as http://127.0.0.1:8787 and the API key as the token (--token, EDGEVAL_TOKEN)",
    );
    expect(r.stderr).not.toContain("s3cret");
  });

  it("a checkpoint's import warnings and errors are listed, not dropped", async () => {
    const server = http.createServer((req, res) => {
      res.writeHead(req.url === "/v1/benchmarks/import" ? 200 : 400, { "content-type": "application/json" });
      res.end(
        JSON.stringify(
          req.url === "/v1/benchmarks/import"
            ? {
                benchmark_id: "b1",
                imported: 2,
                warnings: [{ path: "rating[0]", message: "trait not imported" }],
                errors: [{ path: "dataFeedElement[1]", message: "bad template" }],
              }
            : { error: { code: "invalid_body", message: "stop here" } },
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const checkpoint = path.join(dir, "bench.jsonld");
      fs.writeFileSync(checkpoint, JSON.stringify({ "@context": {}, name: "b" }));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await python(["--url", url, "run", checkpoint, "--config", config]);
      expect(r.stderr).toContain("warning rating[0]: trait not imported");
      expect(r.stderr).toContain("error dataFeedElement[1]: bad template (its question fails with template_validation)");
    } finally {
      server.close();
    }
  });

  it("prints every pair of a run with more pairs than GET /v1/runs/:id embeds (100)", async () => {
    const pair = (n: number) => ({
      answering_model: `m${n}`,
      parsing_model: "j",
      total: 1,
      passed: 1,
      failed: 0,
      errored: 0,
      pass_rate: 1,
    });
    const server = http.createServer((req, res) => {
      const url = new URL(req.url!, "http://x");
      res.writeHead(req.method === "POST" ? 202 : 200, { "content-type": "application/json" });
      if (req.method === "POST") return res.end(JSON.stringify({ run_id: "r1", status_url: "/v1/runs/r1" }));
      if (url.pathname === "/v1/runs/r1")
        return res.end(
          JSON.stringify({
            run_id: "r1",
            status: "completed",
            progress: { done: 2, total: 2 },
            summary: [pair(1)],
            summary_total: 2,
            summary_next_url: "/v1/runs/r1/summary?cursor=c1",
          }),
        );
      if (url.pathname === "/v1/runs/r1/summary")
        return res.end(
          JSON.stringify(
            url.searchParams.get("cursor") ? { summary: [pair(2)], next_cursor: null } : { summary: [pair(1)], next_cursor: "c1" },
          ),
        );
      return res.end(JSON.stringify({ results: [], next_cursor: null }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await python(["--url", url, "run", benchmark, "--config", config, "--out", path.join(dir, "pairs.ndjson")]);
      expect(r.stdout).toMatch(/^m1 /m);
      expect(r.stdout).toMatch(/^m2 /m);
      expect(r.code).toBe(0);
    } finally {
      server.close();
    }
  });

  it.each([
    ["cancelled", "it was cancelled before every job ran"],
    ["budget_exceeded", "its budget_usd was spent before every job ran"],
    ["failed", "not one result has a verdict (every job errored or was dead-lettered)"],
    ["partial", "some jobs were dead-lettered and left no result"],
  ])("a run that ended %s exits 1 as the CLI does, saying why, its results written all the same", async (status, why) => {
    const pair = { answering_model: "m", parsing_model: "j", total: 4, passed: 1, failed: 0, errored: 0, pass_rate: 1 };
    const server = http.createServer((req, res) => {
      const url = new URL(req.url!, "http://x");
      res.writeHead(req.method === "POST" ? 202 : 200, { "content-type": "application/json" });
      if (req.method === "POST") return res.end(JSON.stringify({ run_id: "r1", status_url: "/v1/runs/r1" }));
      if (url.pathname === "/v1/runs/r1")
        return res.end(JSON.stringify({ run_id: "r1", status, progress: { done: 1, total: 4 }, summary: [pair], summary_total: 1 }));
      return res.end(JSON.stringify({ results: [{ result_id: "x" }], next_cursor: null }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const out = path.join(dir, `${status}.ndjson`);
      const r = await python(["--url", url, "run", benchmark, "--config", config, "--out", out]);
      expect(r.stderr).toContain(`FAIL run r1 ended ${status} with 1/4 results: ${why}`);
      expect(r.code).toBe(1);
      expect(fs.readFileSync(out, "utf8")).toBe('{"result_id": "x"}\n');
    } finally {
      server.close();
    }
  });

  it("waits out a gateway's 503 and a reset while polling, as the CLI does; fails at once on a 401 or a Retry-After of days", async () => {
    let polls = 0;
    let revoked = false;
    let days = false;
    const server = http.createServer((req, res) => {
      if (req.method === "POST") {
        res.writeHead(202, { "content-type": "application/json" });
        return res.end(JSON.stringify({ run_id: "r1", status_url: "/v1/runs/r1" }));
      }
      if (req.url === "/v1/runs/r1") {
        if (days) {
          res.writeHead(503, { "content-type": "application/json", "retry-after": "200000" });
          return res.end(JSON.stringify({ error: { code: "unavailable", message: "down for maintenance" } }));
        }
        if (revoked) {
          res.writeHead(401, { "content-type": "application/json" });
          return res.end(JSON.stringify({ error: { code: "unauthorized", message: "the key was revoked" } }));
        }
        polls++;
        if (polls === 2) {
          res.writeHead(503, { "content-type": "text/html", "retry-after": "0" });
          return res.end("<title>503 Service Unavailable</title>");
        }
        if (polls === 3) return req.socket.destroy(); // a reset: no answer at all
        res.writeHead(200, { "content-type": "application/json" });
        const status = polls === 1 ? "running" : "completed";
        return res.end(
          JSON.stringify({ run_id: "r1", status, progress: { done: polls === 1 ? 0 : 1, total: 1 }, summary: [], summary_total: 0 }),
        );
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ results: [], next_cursor: null }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const out = path.join(dir, "blip.ndjson");
      const r = await python(["--url", url, "run", benchmark, "--config", config, "--out", out, "--poll", "0.1"]);
      expect(r.stderr).not.toContain("Traceback");
      expect(r.stderr).toContain("(retrying in 0 s, failure 1 in a row: GET /v1/runs/r1 -> 503: not an edgeval answer");
      expect(r.stderr).toContain("(retrying in 2 s, failure 2 in a row: GET /v1/runs/r1: ");
      expect(r.code).toBe(0);
      days = true;
      const maintenance = await python(["--url", url, "run", benchmark, "--config", config, "--out", out]);
      expect(maintenance.stderr).toContain("edgeval: GET /v1/runs/r1 -> 503 unavailable: down for maintenance");
      expect(maintenance.stderr).not.toContain("retrying");
      expect(maintenance.code).toBe(2);
      days = false;
      revoked = true;
      const refused = await python(["--url", url, "run", benchmark, "--config", config, "--out", out]);
      expect(refused.stderr).toContain("edgeval: GET /v1/runs/r1 -> 401 unauthorized: the key was revoked");
      expect(refused.stderr).not.toContain("retrying");
      expect(refused.code).toBe(2);
    } finally {
      server.close();
    }
  }, 20_000);

  it("an edgeval refusal with one issue prints it once", async () => {
    const judge = path.join(dir, "judge.json");
    fs.writeFileSync(judge, JSON.stringify({ type: "likert", scael: [1, 5] }));
    expectOneLine(
      await python(["--url", gatewayUrl, "judge", "--config", judge, "--output", "x"]),
      "POST /v1/judge -> 400 invalid_body: config.scael: unknown key",
    );
  });

  it("Ctrl-C while it waits says the run goes on and how to cancel it, exit 130, no traceback", async () => {
    // A server whose run r1 never ends.
    const server = http.createServer((req, res) => {
      res.writeHead(req.method === "POST" ? 202 : 200, { "content-type": "application/json" });
      res.end(
        JSON.stringify(
          req.method === "POST"
            ? { run_id: "r1", status_url: "/v1/runs/r1" }
            : { run_id: "r1", status: "running", progress: { done: 1, total: 4 } },
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const child = spawn("python3", [SCRIPT, "--token", "t", "--url", url, "run", benchmark, "--config", config, "--poll", "0.1"], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      const closed = new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
      // Interrupt once it is waiting for the run.
      await new Promise<void>((resolve) =>
        child.stderr.on("data", (d) => {
          stderr += d;
          if (stderr.includes("running: 1/4 results")) resolve();
        }),
      );
      child.kill("SIGINT");
      expect(await closed).toBe(130);
      expect(stderr).not.toContain("Traceback");
      expect(stderr).toContain("edgeval: interrupted: run r1 goes on on the server; stop it with POST /v1/runs/r1/cancel");
    } finally {
      server.close();
    }
  });

  it("a success answer that is not JSON (a sign-in page) says what answered, exit 2", async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><html><head><title>Sign in</title></head><body>…</body></html>");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      expectOneLine(
        await python(["--url", url, "run", benchmark, "--config", config]),
        `POST /v1/runs -> 200: not an edgeval answer (text/html: "Sign in"); is ${url} the edgeval server (--url, EDGEVAL_URL), with no proxy failing in between?`,
      );
    } finally {
      server.close();
    }
  });

  it("an error page that is not edgeval's says what answered, exit 2", async () => {
    expectOneLine(
      await python(["--url", gatewayUrl, "run", benchmark, "--config", config]),
      `POST /v1/runs -> 502: not an edgeval answer (text/html: "502 Bad Gateway"); is ${gatewayUrl} the edgeval server (--url, EDGEVAL_URL), with no proxy failing in between?`,
    );
  });
});
