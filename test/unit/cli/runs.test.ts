/** `edgeval runs` against a scripted server (the e2e lists a real run on npm run dev). */
import { describe, expect, it } from "vitest";
import { runsCommand } from "../../../cli/commands/runs.ts";
import { main } from "../../../cli/main.ts";
import { createClient } from "../../../src/client/index.ts";
import { capture, json } from "./scripted-server.ts";

const run = (n: number, status = "completed") => ({
  run_id: `r${n}`,
  run_name: n === 1 ? null : `nightly ${n}`,
  benchmark_name: "bench",
  status,
  total_results: 48,
  created_at: `2026-12-0${n}T00:00:00.000Z`,
  finished_at: null,
  status_url: `/v1/runs/r${n}`,
});

/** Pages over `runs`, at most 2 a page whatever was asked (as a server may cap them); records each query asked. */
function server(runs: ReturnType<typeof run>[], asked: string[]) {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(new Request(input, init).url);
    asked.push(`${url.pathname}${url.search}`);
    const limit = Math.min(2, Number(url.searchParams.get("limit")));
    const start = Number(url.searchParams.get("cursor") ?? 0);
    const page = runs.slice(start, start + limit);
    return json({ runs: page, next_cursor: start + limit < runs.length ? String(start + limit) : null });
  }) as typeof globalThis.fetch;
}

describe("edgeval runs", () => {
  it("sends the filters and prints a line a run, names last; says when more are left", async () => {
    const asked: string[] = [];
    const client = createClient({ url: "http://x", token: "t", fetch: server([run(3, "running"), run(1, "running")], asked) });
    const out = capture();
    expect(await runsCommand(client, { status: "queued,running", benchmark: "bench", limit: 2 }, out)).toBe(0);
    expect(asked).toEqual(["/v1/runs?limit=2&status=queued%2Crunning&benchmark_name=bench"]);
    expect(out.lines).toEqual([
      "r3  running          2026-12-03T00:00:00.000Z      48 results  nightly 3 (bench)",
      "r1  running          2026-12-01T00:00:00.000Z      48 results  bench",
      "the newest 2: --limit N for more, --all for every one",
    ]);
  });

  it("--all follows the cursor to the last page; --json prints one array", async () => {
    const asked: string[] = [];
    const client = createClient({ url: "http://x", token: "t", fetch: server([run(5), run(4), run(3), run(2), run(1)], asked) });
    const out = capture();
    expect(await runsCommand(client, { all: true, json: true, limit: 20 }, out)).toBe(0);
    expect(asked).toEqual(["/v1/runs?limit=500", "/v1/runs?limit=500&cursor=2", "/v1/runs?limit=500&cursor=4"]);
    expect((JSON.parse(out.lines.join("\n")) as { run_id: string }[]).map((r) => r.run_id)).toEqual(["r5", "r4", "r3", "r2", "r1"]);
  });

  it("no run says what was looked for; --all with --limit is a usage error", async () => {
    const client = createClient({ url: "http://x", token: "t", fetch: server([], []) });
    const out = capture();
    expect(await runsCommand(client, { status: "running", limit: 20 }, out)).toBe(0);
    expect(out.lines).toEqual(["no runs with status running"]);
    const err = await runsCommand(client, { all: true, limit: 5 }, capture()).catch((e) => e);
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain("--all lists every run");
  });

  it("--limit out of range is refused before any request", async () => {
    const out = capture();
    expect(await main(["node", "edgeval", "runs", "--limit", "0", "--url", "http://127.0.0.1:9", "--token", "t"], out)).toBe(2);
  });
});
