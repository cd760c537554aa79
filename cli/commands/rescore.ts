/**
 * `edgeval rescore RUN --add FILE`: re-scores a finished run (POST /v1/runs/:id/rescore) with what
 * FILE adds (JSON or YAML: parsing_models, answering_models, replicate_count, rubric), then
 * follows the child run as `run` does: progress, the summary table (both old and new pairs), gates.
 */
import type { EdgevalClient, RescoreRequest } from "../../src/client/index.ts";
import { CliError, type Out, readData } from "../io.ts";
import { retryLine } from "../progress.ts";
import { beforeDeadline, checkFollowOptions, type FollowOptions, followRun, rescoreCaveatLines } from "./run.ts";

export interface RescoreOptions extends FollowOptions {
  add?: string;
  replicates?: number;
  name?: string;
}

export async function rescoreCommand(client: EdgevalClient, runId: string, opts: RescoreOptions, out: Out): Promise<number> {
  checkFollowOptions(opts);
  const added = opts.add ? readData(opts.add) : {};
  if (typeof added !== "object" || added === null || Array.isArray(added)) throw new CliError(`${opts.add} must hold an object: {parsing_models?, answering_models?, replicate_count?, rubric?}`);
  const body = { ...(added as RescoreRequest), ...(opts.replicates !== undefined ? { replicate_count: opts.replicates } : {}), ...(opts.name ? { run_name: opts.name } : {}) };
  if (Object.keys(body).every((k) => k === "run_name")) throw new CliError("nothing to add: give --add FILE (new parsing_models, answering_models or rubric traits) or --replicates N");
  // --timeout bounds the whole command, the request that makes the child included (run.ts says why).
  const deadline = AbortSignal.timeout(opts.timeout * 1000);
  // A 429 (the tenant's quota: no child made) is waited out within --timeout, as run's submit is.
  const rescoring = client.runs.rescore(runId, body, { signal: deadline, onRetry: retryLine(out), maxDelayMs: opts.timeout * 1000 });
  const child = await beforeDeadline(rescoring, deadline, `POST /v1/runs/${runId}/rescore`, `${opts.timeout} s`, `the server may have made the child run or not: list the runs (GET /v1/runs) before re-sending`);
  out.err(`run ${child.run_id} re-scores ${runId}: ${client.url}${child.status_url}`);
  // What the child does not carry (a run's scenarios) is said before the wait, not found missing after it.
  // A server from before `left_out` sends none.
  for (const l of rescoreCaveatLines(runId, child)) out.err(l);
  return followRun(client, child.run_id, opts, out, { deadline, serverAnswered: true, caveatsSaid: true });
}
