/**
 * The CLI tests' scripted edgeval: a fetch answering "METHOD /path" from a route table (anything
 * else is edgeval's 404 "no route", as a server without an event stream answers), the run r1's
 * answers, and an `Out` that keeps every line.
 */
import fs from "node:fs";
import path from "node:path";
import type { Out } from "../../../cli/io.ts";

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/** A fetch answering "METHOD /path" from `routes`; any other request is edgeval's 404 (no event stream, say). */
export function routesFetch(routes: Record<string, (req: Request) => Response | Promise<Response>>): typeof globalThis.fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const where = `${req.method} ${new URL(req.url).pathname}`;
    const route = routes[where];
    return route ? route(req) : json({ error: { code: "not_found", message: `no route ${where}` } }, 404);
  }) as typeof globalThis.fetch;
}

/** POST /v1/runs taking the run as r1. */
export const acceptedR1 = () => acceptedR1With([]);
/** POST /v1/runs taking the run as r1, with these warnings (options the run took but does not apply). */
export const acceptedR1With = (warnings: unknown[]) => json({ run_id: "r1", status_url: "/v1/runs/r1", warnings }, 202);

/** GET /v1/runs/r1: the run with `status`, nothing priced; by default no results and no pairs. */
export const runR1 = (status: string, progress = { total: 0, done: 0 }, summary: unknown[] = []) =>
  json({ run_id: "r1", status, progress, summary, summary_total: summary.length, usage: { total: { cost_usd: 0 } } });

export function capture(): Out & { lines: string[] } {
  const lines: string[] = [];
  return { lines, isTTY: false, line: (s) => lines.push(s), err: (s) => lines.push(s), status: () => {} };
}

/** A benchmark and a config file in `dir`, enough for `runCommand` (the scripted server reads neither). */
export function runFiles(dir: string): { benchmark: string; config: string } {
  const benchmark = path.join(dir, "bench.json");
  const config = path.join(dir, "config.json");
  fs.writeFileSync(benchmark, JSON.stringify({ name: "b", questions: [] }));
  fs.writeFileSync(config, JSON.stringify({ answering_models: [] }));
  return { benchmark, config };
}
