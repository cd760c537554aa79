/** Issue 24 item 3: `edgeval cancel` and `results` against a scripted server (the e2e covers the refusals against npm run dev). */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cancelCommand } from "../../../cli/commands/misc.ts";
import { resultsCommand } from "../../../cli/commands/results.ts";
import { runCommand } from "../../../cli/commands/run.ts";
import { judgesCommand } from "../../../cli/commands/judges.ts";
import type { Out } from "../../../cli/io.ts";
import { createClient } from "../../../src/client/index.ts";

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

function capture(): Out & { lines: string[] } {
  const lines: string[] = [];
  return { lines, isTTY: false, line: (s) => lines.push(s), err: (s) => lines.push(s), status: () => {} };
}

describe("edgeval cancel", () => {
  it("prints the run as the cancel left it", async () => {
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      expect(`${req.method} ${new URL(req.url).pathname}`).toBe("POST /v1/runs/r1/cancel");
      return json({ run_id: "r1", status: "cancelled", progress: { total: 48, done: 7 } });
    }) as typeof globalThis.fetch;
    const out = capture();
    expect(await cancelCommand(createClient({ url: "http://x", token: "t", fetch }), "r1", out)).toBe(0);
    expect(out.lines).toEqual(["run r1: cancelled, 7/48 results; no model call of it starts from now on"]);
  });

  it("says so when the server is older than the cancel route", async () => {
    const fetch = (async () => json({ error: { code: "not_found", message: "no route POST /v1/runs/r1/cancel" } }, 404)) as typeof globalThis.fetch;
    const err = await cancelCommand(createClient({ url: "http://x", token: "t", fetch }), "r1", capture()).catch((e) => e);
    expect(err.message).toContain("this server cannot cancel runs (it is older than POST /v1/runs/:id/cancel)");
    expect(err.exitCode).toBe(2);
  });
});

describe("edgeval results", () => {
  it("refuses csv and karenina before any request (no export route yet), naming ndjson", async () => {
    const fetch = (async () => {
      throw new Error("no request expected");
    }) as typeof globalThis.fetch;
    for (const format of ["csv", "karenina"] as const) {
      const err = await resultsCommand(createClient({ url: "http://x", token: "t", fetch }), "r1", { format, output: "-" }, capture()).catch((e) => e);
      expect(err.message).toContain(`--format ${format} needs the server's results export (issue 21)`);
      expect(err.message).toContain("Use --format ndjson");
    }
  });
});

describe("edgeval run --preset", () => {
  /** A server that takes the run, has no event stream, and answers the run as completed with no pairs. */
  function scripted(bodies: unknown[]) {
    return (async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      const where = `${req.method} ${new URL(req.url).pathname}`;
      if (where === "POST /v1/runs") {
        bodies.push(await req.json());
        return json({ run_id: "r1", status_url: "/v1/runs/r1" }, 202);
      }
      if (where === "GET /v1/runs/r1") return json({ run_id: "r1", status: "completed", progress: { total: 0, done: 0 }, summary: [], summary_total: 0, usage: { total: { cost_usd: 0 } } });
      return json({ error: { code: "not_found", message: `no route ${where}` } }, 404);
    }) as typeof globalThis.fetch;
  }
  const files = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-preset-"));
    const benchmark = path.join(dir, "bench.json");
    fs.writeFileSync(benchmark, JSON.stringify({ name: "b", questions: [] }));
    const overrides = path.join(dir, "overrides.json");
    fs.writeFileSync(overrides, JSON.stringify({ answering_models: [{ id: "m", interface: "manual", manual_answers: {} }] }));
    return { benchmark, overrides };
  };
  const opts = { maxErrors: 0, timeout: 10, pollMs: 100 };

  it("names the preset by preset_id, with --config as the preset's overrides", async () => {
    const bodies: unknown[] = [];
    const { benchmark, overrides } = files();
    const client = createClient({ url: "http://x", token: "t", fetch: scripted(bodies) });
    expect(await runCommand(client, benchmark, { ...opts, preset: "pre_1", config: overrides }, capture())).toBe(0);
    expect(await runCommand(client, benchmark, { ...opts, preset: "pre_1" }, capture())).toBe(0);
    expect(bodies).toEqual([
      { preset_id: "pre_1", run_name: "bench.json", config: { answering_models: [{ id: "m", interface: "manual", manual_answers: {} }] }, benchmark: { name: "b", questions: [] } },
      { preset_id: "pre_1", run_name: "bench.json", benchmark: { name: "b", questions: [] } },
    ]);
  });

  it("still refuses a run with neither --config nor --preset before any request", async () => {
    const err = await runCommand(createClient({ url: "http://x", token: "t", fetch: scripted([]) }), files().benchmark, opts, capture()).catch((e) => e);
    expect(err.message).toContain("--preset ID naming a stored preset");
  });
});

describe("edgeval judges", () => {
  it("stores a judge from a file and prints a token once on stdout, the promptfoo URL naming the env var on stderr", async () => {
    const seen: string[] = [];
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      const where = `${req.method} ${new URL(req.url).pathname}`;
      seen.push(`${where} ${req.method === "POST" ? await req.text() : ""}`.trim());
      if (where === "POST /v1/judges") return json({ judge_id: "jdg_1", promptfoo_url: "/v1/judges/jdg_1/promptfoo" }, 201);
      if (where === "POST /v1/judges/jdg_1/tokens") {
        return json({ token_id: "abc", judge_id: "jdg_1", name: "ci", token: "jt_abc_secret", promptfoo_url: "/v1/judges/jdg_1/promptfoo?token=jt_abc_secret" }, 201);
      }
      return json({ error: { code: "not_found", message: `no route ${where}` } }, 404);
    }) as typeof globalThis.fetch;
    const client = createClient({ url: "http://x", token: "t", fetch });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cli-judges-")), "judge.json");
    fs.writeFileSync(file, JSON.stringify({ name: "capitals", config: { type: "judge" } }));
    const stored = capture();
    expect(await judgesCommand(client, "store", { config: file }, stored)).toBe(0);
    expect(stored.lines[0]).toBe("jdg_1");
    const minted = capture();
    expect(await judgesCommand(client, "token", { id: "jdg_1", name: "ci" }, minted)).toBe(0);
    expect(minted.lines).toEqual(["jt_abc_secret", "token abc for judge jdg_1: shown once; promptfoo posts to http://x/v1/judges/jdg_1/promptfoo?token={{ env.EDGEVAL_JUDGE_TOKEN }}"]);
    expect(seen).toEqual(['POST /v1/judges {"name":"capitals","config":{"type":"judge"}}', 'POST /v1/judges/jdg_1/tokens {"name":"ci"}']);
    const err = await judgesCommand(client, "revoke", { id: "jdg_1" }, capture()).catch((e) => e);
    expect(err.message).toContain("--token-id");
  });
});
