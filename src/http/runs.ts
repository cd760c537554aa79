/** /v1/runs: submit, list, status, results. */
import { type Context, Hono } from "hono";
import { type AppEnv, requireScope, tenantOf } from "./auth";
import { canonicalJson } from "../lib/jcs";
import { sha256Hex } from "../lib/sha256";
import { ResultsQuery, RunListQuery, SummaryQuery } from "../schemas/api";
import { deleteRun } from "../storage/delete-run";
import { actorOf, auditIfChanged } from "../tenants/audit";
import { getStoredResult, listResultJson } from "../storage/results-repo";
import { fullResultJson } from "../storage/result-store";
import { requireSpec } from "../storage/spec-store";
import { runGroupSummaries } from "../summaries/run-summary";
import { resultFilter } from "./result-filter";
import { getRun, getRunWithChildren, listRuns, type RunRecord } from "../storage/runs-repo";
import { cancelRun } from "./run-cancel";
import { dropRunRow, isLive, keepRunRow, keptRunRow } from "./live-run-rows";
import type { RunSnapshot } from "../coordinator/rpc-types";
import { httpHost, submitRun } from "./submit-run";
import { readJson, validateQuery } from "./body";
import { runEvents } from "./run-events";
import { ApiFailure, invalidBody, invalidQuery } from "./errors";
import { decodeCursor, encodeCursor } from "./cursor";
import { reply } from "./reply";
import { DeletedRun, DryRunEstimate, RunList, RunStatus, type RunStatusView, SubmittedRun, SummaryPage } from "../schemas/run-views";
import { RUN_BODY_LIMIT } from "../schemas/body-limits";

/**
 * GET /v1/runs/:id embeds at most this many (answering, parsing) pairs: a run of 100 × 100
 * models has 10,000 and would be ~4 MB in one response. The rest: GET /v1/runs/:id/summary.
 */
export const EMBEDDED_PAIRS = 100;

export const runs = new Hono<AppEnv>();

runs.post("/", requireScope("runs:write"), async (c) => {
  const raw = await readJson(c, RUN_BODY_LIMIT);
  const idemKey = idempotencyKey(c.req.header("idempotency-key"));
  // The same request re-sent pretty-printed or with keys in another order is the same body.
  const idempotency = idemKey ? { key: idemKey, body_hash: await sha256Hex(canonicalJson(raw.value)) } : null;
  const outcome = await submitRun(httpHost(c), { tenant: tenantOf(c), actor: actorOf(c.get("principal")), raw: raw.value, idempotency });
  if (outcome.kind === "estimate") return reply(c, DryRunEstimate, outcome.body);
  // A repeated Idempotency-Key answers exactly as the first request did (test/reliability scenario 7).
  c.header("Location", statusUrl(outcome.run_id));
  return reply(c, SubmittedRun, { run_id: outcome.run_id, status_url: statusUrl(outcome.run_id), warnings: outcome.warnings }, 202);
});

runs.get("/", requireScope("runs:read"), async (c) => {
  const q = validateQuery(RunListQuery, c.req.queries());
  const cursor = q.cursor ? decodeCursor(q.cursor, ["created_at", "run_id"]) : null;
  const rows = await listRuns(c.env.DB, tenantOf(c).tenant_id, q.limit, cursor && { created_at: cursor[0]!, run_id: cursor[1]! }, {
    statuses: q.status,
    benchmark_name: q.benchmark_name,
  });
  const last = rows.length === q.limit ? rows[rows.length - 1] : undefined;
  return reply(c, RunList, {
    runs: rows.map((r) => ({
      run_id: r.run_id,
      run_name: r.run_name,
      benchmark_name: r.benchmark_name,
      status: r.status,
      total_results: r.total_results,
      created_at: r.created_at,
      finished_at: r.finished_at,
      status_url: statusUrl(r.run_id),
    })),
    next_cursor: last ? encodeCursor([last.created_at, last.run_id]) : null,
  });
});

/** A live run's row comes from this isolate's memory, not D1, between polls (live-run-rows.ts says why that is exact). */
runs.get("/:id", requireScope("runs:read"), async (c) => {
  const runId = c.req.param("id");
  const tenantId = tenantOf(c).tenant_id;
  const kept = keptRunRow(tenantId, runId);
  // No snapshot (a run deleted since, its state purged) falls through to D1, which answers 404.
  const snap = kept && (await coordinatorSnapshot(c, kept.run));
  if (kept && snap && isLive(snap.status)) return reply(c, RunStatus, statusView(kept.run, kept.children, snap));
  dropRunRow(tenantId, runId);
  const row = await requireRunWithChildren(c, runId);
  // A snapshot taken with the kept row is the same coordinator's, and newer than the row read after it.
  const now = snap || (await requireSnapshot(c, row.run));
  if (isLive(now.status)) keepRunRow(tenantId, row);
  return reply(c, RunStatus, statusView(row.run, row.children, now));
});

/** POST /v1/runs/:id/cancel (run-cancel.ts): the run's view as GET /v1/runs/:id gives it, status cancelled. */
runs.post("/:id/cancel", requireScope("runs:write"), async (c) => {
  const { run, children } = await requireRunWithChildren(c, c.req.param("id"));
  await cancelRun(c, run);
  return reply(c, RunStatus, await runView(c, run, children));
});

/** GET /v1/runs/:id/events: the run's live events, Server-Sent Events (run-events.ts). */
runs.get("/:id/events", requireScope("runs:read"), async (c) => runEvents(c, await requireRun(c, c.req.param("id"))));

/**
 * GET /v1/runs/:id: the run's status, progress, the first pairs of its summary, usage and manifest.
 * `children`: the runs re-scored from it, read with the run (getRunWithChildren).
 */
export async function runView(c: Context<AppEnv>, run: RunRecord, children: string[]): Promise<RunStatusView> {
  return statusView(run, children, await requireSnapshot(c, run));
}

/** The coordinator's snapshot with the first EMBEDDED_PAIRS pairs; null when it holds no run. */
function coordinatorSnapshot(c: Context<AppEnv>, run: RunRecord): Promise<RunSnapshot | null> {
  // The coordinator is reached only by the name on the tenant-checked row.
  return c.env.RUNS.getByName(run.coordinator_name ?? run.run_id).snapshot({ offset: 0, limit: EMBEDDED_PAIRS });
}

/**
 * 409 run_active for a run still queued or running, saying what to do (`advice`, e.g. "delete it once it
 * has finished"). D1's row mirrors the coordinator's status a moment after the run ends, so a row still
 * saying live is checked with the coordinator, the source of truth: a client that saw the end in
 * GET /v1/runs/:id is never refused in between. One check for every action that needs a finished run.
 *
 * A cancelled run says `cancelled` at once, but the calls its jobs had started finish and record their
 * results until `finished_at` is set: until then it is refused too (a delete went through and those
 * results landed behind it, rows of a run that no longer existed and could not be deleted).
 */
export async function requireEnded(c: Context<AppEnv>, run: RunRecord, advice: string): Promise<void> {
  if (!isLive(run.status) && run.finished_at !== null) return;
  const snap = await c.env.RUNS.getByName(run.coordinator_name ?? run.run_id).snapshot({ offset: 0, limit: 0 });
  // No coordinator state: the row is all there is (a run from before, or one whose state was purged).
  if (!snap ? !isLive(run.status) : !isLive(snap.status) && snap.finished_at !== null) return;
  const status = snap?.status ?? run.status;
  const why = isLive(status) ? `is ${status}` : `is ${status} but calls it had started are still finishing (it ends within seconds)`;
  throw new ApiFailure({ code: "run_active", message: `run ${run.run_id} ${why}; ${advice}` });
}

async function requireSnapshot(c: Context<AppEnv>, run: RunRecord): Promise<RunSnapshot> {
  const snap = await coordinatorSnapshot(c, run);
  if (!snap) throw new ApiFailure({ code: "internal", message: "run state is missing; contact the operator" });
  return snap;
}

function statusView(run: RunRecord, children: string[], snap: RunSnapshot): RunStatusView {
  const more = snap.pairs_total > snap.summary.length;
  return {
    run_id: run.run_id,
    run_name: run.run_name,
    benchmark_name: run.benchmark_name,
    status: snap.status,
    progress: snap.progress,
    summary: snap.summary,
    summary_total: snap.pairs_total,
    // The rest of the pairs, page by page (GET …/summary); null when summary holds them all.
    summary_next_url: more ? `${statusUrl(run.run_id)}/summary?cursor=${pairCursor(snap.summary.length)}` : null,
    usage: snap.usage,
    budget_usd: snap.budget_usd,
    manifest: snap.manifest,
    lineage: {
      parent_run_id: run.parent_run_id ?? null,
      children,
      left_out: run.rescore_caveats?.left_out ?? null,
      graded_afresh: run.rescore_caveats?.graded_afresh ?? null,
    },
    created_at: run.created_at,
    finished_at: snap.finished_at,
  };
}

/**
 * The summary, paged. Without group_by: the coordinator's per-pair view, in the order GET
 * /v1/runs/:id embeds it. With group_by: groups computed from the result rows, with pass@k and
 * pass^k (src/summaries/README.md), sorted by the group's key.
 */
runs.get("/:id/summary", requireScope("runs:read"), async (c) => {
  const run = await requireRun(c, c.req.param("id"));
  const q = validateQuery(SummaryQuery, c.req.queries());
  const offset = q.cursor ? pairOffset(q.cursor) : 0;
  if (q.group_by) {
    const spec = await requireSpec(c.env.BLOBS, run);
    const groups = await runGroupSummaries(c.env.DB, run, spec, q.group_by);
    const page = groups.slice(offset, offset + q.limit);
    const end = offset + page.length;
    return c.json({
      group_by: q.group_by,
      replicate_count: spec.replicate_count,
      groups: page,
      groups_total: groups.length,
      next_cursor: end < groups.length ? pairCursor(end) : null,
    });
  }
  const snap = await c.env.RUNS.getByName(run.coordinator_name ?? run.run_id).snapshot({ offset, limit: q.limit });
  if (!snap) throw new ApiFailure({ code: "internal", message: "run state is missing; contact the operator" });
  const end = offset + snap.summary.length;
  return reply(c, SummaryPage, { summary: snap.summary, next_cursor: end < snap.pairs_total ? pairCursor(end) : null });
});

/** Results in result_id order, filtered by answering/parsing model, question, verdict and failure group. */
runs.get("/:id/results", requireScope("runs:read"), async (c) => {
  const run = await requireRun(c, c.req.param("id"));
  const q = validateQuery(ResultsQuery, c.req.queries());
  const filter = await resultFilter(q, () => requireSpec(c.env.BLOBS, run));
  const after = q.cursor ? decodeCursor(q.cursor, ["result_id"])[0]! : null;
  const rows = await listResultJson(c.env.DB, run.tenant_id, run.run_id, q.limit, after, filter);
  const last = rows.length === q.limit ? rows[rows.length - 1] : undefined;
  // compact_json is already serialised: splice it in rather than parse and re-serialise.
  const results = `[${rows.map((r) => r.compact_json).join(",")}]`;
  const next = last ? JSON.stringify(encodeCursor([last.result_id])) : "null";
  return c.body(`{"results":${results},"next_cursor":${next}}`, 200, { "content-type": "application/json" });
});

runs.get("/:id/results/:result_id", requireScope("runs:read"), async (c) => {
  const run = await requireRun(c, c.req.param("id"));
  const row = await getStoredResult(c.env.DB, run.tenant_id, run.run_id, c.req.param("result_id"));
  const json = await fullResultJson(c.env.BLOBS, row);
  if (json === null) throw new ApiFailure({ code: "not_found", message: `no result ${c.req.param("result_id")} in run ${run.run_id}` });
  return c.body(json, 200, { "content-type": "application/json" });
});

runs.delete("/:id", requireScope("runs:write"), async (c) => {
  // A run whose deletion stopped half-way is found here (and only here): the repeat finishes it.
  const run = (await getRun(c.env.DB, tenantOf(c).tenant_id, c.req.param("id"))) ?? runNotFound(c.req.param("id"));
  if (!run.deleting_at) await requireEnded(c, run, "delete it once it has finished");
  const principal = c.get("principal");
  // The entry goes in the batch that deletes the run's row, written only if that delete changed
  // it: written after, a failed insert left the run deleted, unaudited, and its retry a 404.
  const removed = await deleteRun(c.env, run, new Date().toISOString(), (r) => [
    auditIfChanged(c.env.DB, {
      tenant_id: run.tenant_id,
      actor: actorOf(principal),
      action: "run.deleted",
      target: run.run_id,
      detail: { ...r },
    }),
  ]);
  return reply(c, DeletedRun, { run_id: run.run_id, deleted: true, ...removed });
});

/** The tenant's run, whole: 404 when there is none, 410 run_deleting while a DELETE of it is unfinished. */
export async function requireRun(c: Context<AppEnv>, runId: string): Promise<RunRecord> {
  return notDeleting((await getRun(c.env.DB, tenantOf(c).tenant_id, runId)) ?? runNotFound(runId));
}

export async function requireRunWithChildren(c: Context<AppEnv>, runId: string): Promise<{ run: RunRecord; children: string[] }> {
  const found = (await getRunWithChildren(c.env.DB, tenantOf(c).tenant_id, runId)) ?? runNotFound(runId);
  notDeleting(found.run);
  return found;
}

/**
 * Part of a run being deleted may be gone already (its objects and coordinator state go before its
 * row), so it is not read at all: the caller is told to finish the deletion, which is idempotent.
 */
function notDeleting(run: RunRecord): RunRecord {
  if (!run.deleting_at) return run;
  throw new ApiFailure({
    code: "run_deleting",
    message: `run ${run.run_id} is being deleted (since ${run.deleting_at}) and did not finish; repeat DELETE /v1/runs/${run.run_id} to complete it`,
  });
}

function runNotFound(runId: string): never {
  throw new ApiFailure({ code: "not_found", message: `no run ${runId}; list runs with GET /v1/runs` });
}

const pairCursor = (offset: number) => encodeCursor([String(offset)]);

function pairOffset(cursor: string): number {
  const offset = Number(decodeCursor(cursor, ["offset"])[0]);
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw invalidQuery([{ path: "query cursor", message: "not a cursor this API returned; start again without one" }]);
  return offset;
}

export function statusUrl(runId: string): string {
  return `/v1/runs/${runId}`;
}

function idempotencyKey(header: string | undefined): string | null {
  if (header === undefined) return null;
  const key = header.trim();
  if (key.length === 0 || key.length > 255) {
    throw invalidBody([{ path: "header Idempotency-Key", message: "must be 1 to 255 characters" }]);
  }
  return key;
}
