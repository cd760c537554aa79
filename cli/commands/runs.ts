/** `edgeval runs`: the tenant's runs, newest first, optionally only some statuses or one benchmark. */
import type { EdgevalClient, RunListItem } from "../../src/client/index.ts";
import { CliError, type Out } from "../io.ts";

export interface RunsOptions {
  status?: string;
  benchmark?: string;
  limit: number;
  all?: boolean;
  json?: boolean;
}

export async function runsCommand(client: EdgevalClient, opts: RunsOptions, out: Out): Promise<number> {
  if (opts.all && opts.limit !== DEFAULT_LIMIT) throw new CliError("--all lists every run: leave out --limit, or drop --all");
  const filter = { ...(opts.status ? { status: opts.status } : {}), ...(opts.benchmark ? { benchmark_name: opts.benchmark } : {}) };
  const runs: RunListItem[] = [];
  if (opts.all) {
    for await (const r of client.runs.iterate({ limit: 500, ...filter })) runs.push(r);
  } else {
    runs.push(...(await client.runs.list({ limit: opts.limit, ...filter })).runs);
  }
  if (opts.json) {
    out.line(JSON.stringify(runs, null, 2));
    return 0;
  }
  if (runs.length === 0) {
    out.err(`no runs${filter.status ? ` with status ${filter.status}` : ""}${filter.benchmark_name ? ` of benchmark ${JSON.stringify(filter.benchmark_name)}` : ""}`);
    return 0;
  }
  for (const r of runs) out.line(runLine(r));
  if (!opts.all && runs.length === opts.limit) out.err(`the newest ${opts.limit}: --limit N for more, --all for every one`);
  return 0;
}

export const DEFAULT_LIMIT = 20;

/** One line a run: id, status, when, size, then its names (free text, last). */
function runLine(r: RunListItem): string {
  const name = r.run_name ? `${r.run_name} (${r.benchmark_name ?? "?"})` : (r.benchmark_name ?? "");
  return `${r.run_id}  ${r.status.padEnd(15)}  ${r.created_at}  ${String(r.total_results).padStart(6)} results  ${name}`;
}
