/**
 * `edgeval run`, `rescore` and `watch` following a run against a scripted server: a gateway's blip
 * while waiting, a quota's 429 on the submit, a server that never answers (--timeout bounds the
 * submit too), a watch that ends before the run (what to do next), --json for jq, and watch.
 */
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { rescoreCommand } from "../../../cli/commands/rescore.ts";
import { followRun, runCommand } from "../../../cli/commands/run.ts";
import { main } from "../../../cli/main.ts";
import { createClient } from "../../../src/client/index.ts";
import { tempDirs } from "../../support/temp-dirs.ts";
import { acceptedR1, capture, json, routesFetch, runFiles, runR1 } from "./scripted-server.ts";

const tempDir = tempDirs();

describe("edgeval run through a gateway's blip", () => {
  it("a reset on the first watch right after the submit is a blip (the server just answered), not 'no server'", async () => {
    const { benchmark, config } = runFiles(tempDir("cli-first-watch-"));
    let watches = 0;
    const fetch = routesFetch({
      "POST /v1/runs": acceptedR1,
      "GET /v1/runs/r1/events": () => {
        if (++watches === 1) throw new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
        return new Response('event: done\ndata: {"status":"completed"}\n\n', { headers: { "content-type": "text/event-stream" } });
      },
      "GET /v1/runs/r1": () => runR1("completed"),
    });
    const out = capture();
    const client = createClient({ url: "http://x", token: "t", fetch });
    expect(await runCommand(client, benchmark, { config, maxErrors: 0, timeout: 30, pollMs: 100 }, out)).toBe(0);
    expect(
      out.lines.some((l) =>
        l.startsWith("(retrying in 1 s, failure 1 in a row: GET http://x/v1/runs/r1/events: fetch failed (ECONNRESET)"),
      ),
    ).toBe(true);
  });

  it("retries a status GET that failed with a 503 and ends with the run's own verdict, saying it retried", async () => {
    const { benchmark, config } = runFiles(tempDir("cli-blip-"));
    let polls = 0;
    const fetch = routesFetch({
      "POST /v1/runs": acceptedR1,
      "GET /v1/runs/r1": () =>
        ++polls === 2
          ? new Response("<html><title>503 Service Temporarily Unavailable</title></html>", {
              status: 503,
              headers: { "content-type": "text/html", "retry-after": "0" },
            })
          : runR1(polls === 1 ? "running" : "completed", { total: 1, done: polls === 1 ? 0 : 1 }),
    });
    const out = capture();
    const client = createClient({ url: "http://x", token: "t", fetch });
    expect(await runCommand(client, benchmark, { config, maxErrors: 0, timeout: 30, pollMs: 100 }, out)).toBe(0);
    expect(out.lines.filter((l) => l.includes("503"))).toEqual([
      '(retrying in 0 s, failure 1 in a row: GET /v1/runs/r1 → 503 error: not an edgeval answer (text/html: "503 Service Temporarily Unavailable"); is http://x the edgeval server (--url, EDGEVAL_URL), with no proxy failing in between?)',
    ]);
  });
});

describe("edgeval run --json", () => {
  const pair = (answering: string, passed: number, failed: number) => ({
    answering_model: answering,
    parsing_model: "j",
    total: passed + failed,
    passed,
    failed,
    errored: 0,
    pass_rate: passed / (passed + failed),
  });
  const server = (status: string) =>
    routesFetch({
      "POST /v1/runs": acceptedR1,
      "GET /v1/runs/r1": () => runR1(status, { total: 4, done: 4 }, [pair("a", 2, 0), pair("b", 1, 1)]),
    });
  const files = () => runFiles(tempDir("cli-json-"));
  /** stdout and stderr apart: stdout must hold the one JSON document and nothing else. */
  const split = () => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    return {
      stdout,
      stderr,
      out: { isTTY: false, line: (s: string) => stdout.push(s), err: (s: string) => stderr.push(s), status: () => {} },
    };
  };

  it("prints one JSON document on stdout: the status, cost, every pair, the gates and what failed them; the exit code agrees", async () => {
    const { benchmark, config } = files();
    const io = split();
    const client = createClient({ url: "http://x", token: "t", fetch: server("completed") });
    const code = await runCommand(
      client,
      benchmark,
      { config, failUnder: 0.75, maxErrors: 0, timeout: 10, pollMs: 100, json: true },
      io.out,
    );
    expect(code).toBe(1);
    expect(io.stdout).toHaveLength(1);
    expect(JSON.parse(io.stdout[0]!)).toEqual({
      run_id: "r1",
      status: "completed",
      progress: { total: 4, done: 4 },
      cost_usd: 0,
      usage: { cost_usd: 0 },
      summary: [pair("a", 2, 0), pair("b", 1, 1)],
      gates: { fail_under: 0.75, max_errors: 0 },
      failures: ["b / j: pass rate 50.0 % is below --fail-under 0.75 (1/2)"],
      passed: false,
    });
    expect(io.stderr).toContain("FAIL b / j: pass rate 50.0 % is below --fail-under 0.75 (1/2)");
  });

  it("says passed: true and exits 0 when every gate passes", async () => {
    const { benchmark, config } = files();
    const io = split();
    const client = createClient({ url: "http://x", token: "t", fetch: server("completed") });
    expect(await runCommand(client, benchmark, { config, maxErrors: 0, timeout: 10, pollMs: 100, json: true }, io.out)).toBe(0);
    expect(JSON.parse(io.stdout[0]!)).toMatchObject({ passed: true, failures: [], gates: { fail_under: null, max_errors: 0 } });
  });

  it("prints the document before --save-results, so a save that fails (exit 2) still leaves the verdict on stdout", async () => {
    const { benchmark, config } = files();
    const io = split();
    // No export route: the save fails once the run has ended.
    const client = createClient({ url: "http://x", token: "t", fetch: server("completed") });
    const saveResults = path.join(path.dirname(benchmark), "results.ndjson");
    const opts = { config, maxErrors: 0, timeout: 10, pollMs: 100, json: true, saveResults };
    const err = await runCommand(client, benchmark, opts, io.out).catch((e) => e);
    expect(err.message).toContain("this server has no results export");
    expect(JSON.parse(io.stdout[0]!)).toMatchObject({ run_id: "r1", passed: true });
  });

  it("refuses --save-results - with it, which would put the results into the same stdout, before any request", async () => {
    const { benchmark, config } = files();
    const client = createClient({ url: "http://x", token: "t", fetch: server("completed") });
    const opts = { config, maxErrors: 0, timeout: 10, pollMs: 100, json: true, saveResults: "-" };
    const err = await runCommand(client, benchmark, opts, split().out).catch((e) => e);
    expect(err.message).toBe(
      "--json and --save-results - would both write to stdout: save the results to a file (--save-results results.ndjson)",
    );
  });
});

describe("edgeval run: a watch that ends before the run", () => {
  const files = () => runFiles(tempDir("cli-watch-ends-"));

  it("when the server stops answering (retries spent), says the run may go on and how to follow or stop it", async () => {
    const { benchmark, config } = files();
    const fetch = routesFetch({
      "POST /v1/runs": acceptedR1,
      "GET /v1/runs/r1": () => new Response("<title>503 Service Unavailable</title>", { status: 503, headers: { "retry-after": "0" } }),
    });
    const client = createClient({ url: "http://x", token: "t", fetch });
    const err = await runCommand(client, benchmark, { config, maxErrors: 0, timeout: 30, pollMs: 100 }, capture()).catch((e) => e);
    expect(err.message).toContain("GET /v1/runs/r1 → 503");
    expect(err.message).toContain("(failed 6 times in a row; gave up)");
    expect(err.message).toContain(
      "\nrun r1 may go on on the server: follow it again with: edgeval watch r1, or stop it with: edgeval cancel r1",
    );
    expect(err.exitCode).toBe(2);
  });

  it("after --timeout, names edgeval watch to follow it again", async () => {
    const { benchmark, config } = files();
    const fetch = routesFetch({ "POST /v1/runs": acceptedR1, "GET /v1/runs/r1": () => runR1("running", { total: 4, done: 1 }) });
    const client = createClient({ url: "http://x", token: "t", fetch });
    const err = await runCommand(client, benchmark, { config, maxErrors: 0, timeout: 1, pollMs: 100 }, capture()).catch((e) => e);
    expect(err.message).toBe(
      "run r1 did not finish within 1 s (--timeout); it goes on on the server: follow it again with: edgeval watch r1, or stop it with: edgeval cancel r1",
    );
  });

  it("a refusal that is no blip (the run was deleted: 404) is passed on as it is", async () => {
    const { benchmark, config } = files();
    const fetch = routesFetch({
      "POST /v1/runs": acceptedR1,
      "GET /v1/runs/r1": () => json({ error: { code: "not_found", message: "no run r1; list runs with GET /v1/runs" } }, 404),
    });
    const client = createClient({ url: "http://x", token: "t", fetch });
    const err = await runCommand(client, benchmark, { config, maxErrors: 0, timeout: 30, pollMs: 100 }, capture()).catch((e) => e);
    expect(err.message).toBe("GET /v1/runs/r1 → 404 not_found: no run r1; list runs with GET /v1/runs");
  });
});

describe("--timeout bounds the whole command, the submit included", () => {
  /** A server that takes every request and never answers (until the request is aborted). */
  const hung = (async (_input: RequestInfo | URL, init?: RequestInit) =>
    new Promise<Response>((_resolve, reject) =>
      init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)),
    )) as typeof globalThis.fetch;
  const files = () => runFiles(tempDir("cli-hung-"));

  it("run: a POST /v1/runs that never answers ends at --timeout, saying the run may exist and how to re-send safely", async () => {
    const { benchmark, config } = files();
    const client = createClient({ url: "http://x", token: "t", fetch: hung });
    const started = Date.now();
    const err = await runCommand(client, benchmark, { config, maxErrors: 0, timeout: 1, pollMs: 100 }, capture()).catch((e) => e);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(err.message).toBe(
      "no answer to POST /v1/runs within 1 s (--timeout): the server may have taken the run or not; give --idempotency-key KEY when you re-send it, so that a run taken twice is one run",
    );
    const keyed = await runCommand(
      client,
      benchmark,
      { config, maxErrors: 0, timeout: 1, pollMs: 100, idempotencyKey: "ci-42" },
      capture(),
    ).catch((e) => e);
    expect(keyed.message).toContain("re-send it with --idempotency-key ci-42: that returns the run if it was taken");
  });

  it("rescore: a POST …/rescore that never answers ends at --timeout too", async () => {
    const client = createClient({ url: "http://x", token: "t", fetch: hung });
    const err = await rescoreCommand(client, "r0", { replicates: 2, maxErrors: 0, timeout: 1, pollMs: 100 }, capture()).catch((e) => e);
    expect(err.message).toBe(
      "no answer to POST /v1/runs/r0/rescore within 1 s (--timeout): the server may have made the child run or not: list the runs (GET /v1/runs) before re-sending",
    );
  });
});

describe("edgeval run submitting against a quota", () => {
  it("waits out a 429 on POST /v1/runs (the tenant's concurrent runs), saying so, then follows the run", async () => {
    const { benchmark, config } = runFiles(tempDir("cli-429-"));
    let submits = 0;
    const fetch = routesFetch({
      "POST /v1/runs": () =>
        ++submits === 1
          ? json({ error: { code: "quota_exceeded", message: "this tenant has 5 runs queued or running, its limit" } }, 429, {
              "retry-after": "0",
            })
          : acceptedR1(),
      "GET /v1/runs/r1": () => runR1("completed"),
    });
    const out = capture();
    const client = createClient({ url: "http://x", token: "t", fetch });
    expect(await runCommand(client, benchmark, { config, maxErrors: 0, timeout: 30, pollMs: 100 }, out)).toBe(0);
    expect(out.lines).toContain(
      "(retrying in 0 s, failure 1 in a row: POST /v1/runs → 429 quota_exceeded: this tenant has 5 runs queued or running, its limit)",
    );
    expect(submits).toBe(2);
  });

  it("rescore waits out a 429 on POST …/rescore the same way", async () => {
    let submits = 0;
    const fetch = routesFetch({
      "POST /v1/runs/r0/rescore": () =>
        ++submits === 1
          ? json({ error: { code: "rate_limited", message: "requests_per_minute quota spent" } }, 429, { "retry-after": "0" })
          : acceptedR1(),
      "GET /v1/runs/r1": () => runR1("completed"),
    });
    const out = capture();
    const client = createClient({ url: "http://x", token: "t", fetch });
    expect(await rescoreCommand(client, "r0", { replicates: 2, maxErrors: 0, timeout: 30, pollMs: 100 }, out)).toBe(0);
    expect(out.lines).toContain(
      "(retrying in 0 s, failure 1 in a row: POST /v1/runs/r0/rescore → 429 rate_limited: requests_per_minute quota spent)",
    );
  });
});

describe("edgeval watch", () => {
  it("follows a run already submitted to its end, with the gates and --json as run has them", async () => {
    const asked: string[] = [];
    const server = http.createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      const body =
        req.url === "/v1/runs/r1"
          ? {
              run_id: "r1",
              status: "completed",
              progress: { total: 1, done: 1 },
              summary: [],
              summary_total: 0,
              usage: { total: { cost_usd: 0 } },
            }
          : { error: { code: "not_found", message: `no route ${req.method} ${req.url}` } };
      res.writeHead(req.url === "/v1/runs/r1" ? 200 : 404, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const stdout: string[] = [];
      const out = { isTTY: false, line: (s: string) => stdout.push(s), err: () => {}, status: () => {} };
      expect(await main(["node", "edgeval", "watch", "r1", "--json", "--max-errors", "0", "--url", url, "--token", "t"], out)).toBe(0);
      expect(JSON.parse(stdout.join(""))).toMatchObject({ run_id: "r1", status: "completed", passed: true });
      expect(asked.filter((a) => a.startsWith("POST"))).toEqual([]);
    } finally {
      server.close();
    }
  });
});

describe("edgeval watch of a re-scored run", () => {
  it("says what its re-score left out and graded afresh, from the run's lineage, as rescore said it at the start", async () => {
    const lineage = {
      parent_run_id: "p1",
      children: [],
      left_out: [{ what: "scenarios", ids: ["first"], results: 2, reason: "submit the benchmark again" }],
      graded_afresh: { results: 3, reason: "run p1 recorded 1 of its 4 results" },
    };
    const fetch = routesFetch({
      "GET /v1/runs/c1/events": () =>
        new Response('event: done\ndata: {"status":"completed"}\n\n', { headers: { "content-type": "text/event-stream" } }),
      "GET /v1/runs/c1": () =>
        json({
          run_id: "c1",
          status: "completed",
          progress: { total: 1, done: 1 },
          summary: [],
          summary_total: 0,
          usage: { total: { cost_usd: 0 } },
          lineage,
        }),
    });
    const lines: string[] = [];
    const out = { isTTY: false, line: () => {}, err: (s: string) => lines.push(s), status: () => {} };
    const client = createClient({ url: "http://x", token: "t", fetch });
    expect(await followRun(client, "c1", { maxErrors: 0, timeout: 30, pollMs: 100 } as never, out)).toBe(0);
    expect(lines).toContain("graded afresh: 3 result(s): run p1 recorded 1 of its 4 results");
    expect(lines).toContain('left out of the child: scenarios "first" (2 result(s) of run p1): submit the benchmark again');
  });
});
