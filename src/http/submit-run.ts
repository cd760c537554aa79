/**
 * The one way a run starts: POST /v1/runs, a trigger's POST /v1/hooks/:trigger_id and a schedule's
 * cron tick (scheduled-run.ts) all call `submitRun`, so a triggered or scheduled run is validated,
 * planned, limited, de-duplicated and written exactly as a submitted one (src/submit/README.md).
 * Nothing is written before planning has accepted it.
 */
import type { Context } from "hono";
import type { QuotaState } from "../tenants/ratelimit-headers";
import type { Env } from "../env";
import { secretAdvice } from "../env";
import { type CreateRunBody, CreateRunRequest } from "../schemas/api";
import { planRun } from "../submit/plan";
import { startRun } from "../submit/submit";
import { auditStatement } from "../tenants/audit";
import { estimateRun } from "../submit/estimate";
import { getBenchmarkRecord, loadBenchmark } from "../storage/benchmarks-repo";
import { getRun, releaseIdempotencyKey, reserveIdempotencyKey, takeOverIdempotencyKey } from "../storage/runs-repo";
import { effectiveLimits } from "../tenants/limits";
import { loadKeyRing } from "../tenants/key-ring";
import type { TenantRecord } from "../tenants/tenants-repo";
import type { FieldIssue } from "../schemas/field-issue";
import { applyPreset } from "../presets/apply";
import { getPreset } from "../presets/presets-repo";
import { webhooksOfRun } from "../webhooks/emit";
import { requestOrigin } from "../webhooks/links";
import { admitRun, spendAllowance, withinAllowance } from "./run-quotas";
import { benchmarkBeingDeleted, refuseBrokenCode } from "./benchmarks";
import type { AppEnv } from "./auth";
import { validate } from "./body";
import { ApiFailure, invalidBody } from "./errors";
import { guardOn } from "../lib/guards";
import { refuseOverQuota } from "./request-rate";

/**
 * Where a submission comes from: the bindings, and how a quota refusal is answered (over HTTP a
 * 429 with Retry-After and the quota's RateLimit headers; a cron tick has no caller to answer).
 */
export interface SubmitHost {
  env: Env;
  /** Where the run's webhook links point (src/webhooks/links.ts); null: paths. */
  origin: string | null;
  refuseOverQuota(state: QuotaState, retryAfterS: number, message: string): never;
}

export const httpHost = (c: Context<AppEnv>): SubmitHost => ({
  env: c.env,
  origin: requestOrigin(c),
  refuseOverQuota: (...a) => refuseOverQuota(c, ...a),
});

export interface SubmitCall {
  tenant: TenantRecord;
  /** Who the audit log names: `key:<id>`, `deployment_token`, `trigger:<id>`. */
  actor: string;
  /** The run body as received (or as a trigger's mapping built it). */
  raw: unknown;
  /** A repeated key answers the first run's id; another body under the same key is a 409. */
  idempotency: { key: string; body_hash: string } | null;
  /** A trigger's `question_ids`: only these questions of the benchmark are run. */
  question_ids?: readonly string[] | null;
}

export type SubmitOutcome =
  | { kind: "estimate"; body: { estimate: ReturnType<typeof estimateRun>; warnings: FieldIssue[] } }
  | { kind: "started"; run_id: string; warnings: FieldIssue[] }
  | { kind: "repeated"; run_id: string; warnings: FieldIssue[] };

export async function submitRun(host: SubmitHost, call: SubmitCall): Promise<SubmitOutcome> {
  const { tenant, idempotency } = call;
  const { env } = host;
  const limits = effectiveLimits(tenant.limits_json);
  const allowance = await spendAllowance(env.DB, tenant.tenant_id, limits);
  // A body naming preset_id gets the preset's config (its own config overriding) before it is validated.
  const applied = await applyPreset(call.raw, (id) => getPreset(env.DB, tenant.tenant_id, id));
  if (!applied.ok) throw invalidBody(applied.issues);
  const { webhook_endpoint_ids: webhookIds = [], ...request } = validate(CreateRunRequest, applied.body);
  const { result_events } = await requireEndpoints(env, tenant.tenant_id, webhookIds);
  if (request.benchmark) await refuseBrokenCode(request.benchmark, "benchmark.");
  const asked = onlyQuestions(await withBenchmark(env, tenant.tenant_id, request), call.question_ids);
  const body = withinAllowance(asked, allowance);
  const runId = crypto.randomUUID();
  const createdAt = new Date().toISOString();
  const ring = await loadKeyRing(env, tenant, body);
  const plan = planRun(body, { run_id: runId, tenant_id: tenant.tenant_id, created_at: createdAt }, ring, {
    dryRun: body.dry_run === true,
    secretAdvice: (name) => secretAdvice(name, env),
    ...(allowance && body.budget_usd !== asked.budget_usd ? { budgetFromQuota: { monthly_spend_usd: allowance.quota } } : {}),
  });
  if (!plan.ok) throw invalidBody(plan.issues);
  if (plan.jobIds.length > limits.jobs_per_run) {
    throw invalidBody([
      {
        path: "config",
        message: `this run plans ${plan.jobIds.length} jobs (questions × answering models × replicates); this tenant may run at most ${limits.jobs_per_run} per run`,
      },
    ]);
  }
  // A dry run stops here: nothing written, no model called, no idempotency key taken.
  if (body.dry_run) return { kind: "estimate", body: { estimate: estimateRun(plan.spec, body.prices), warnings: plan.warnings } };

  if (idempotency && guardOn("idempotency_key")) {
    const repeated = await takeIdempotencyKey(env.DB, tenant.tenant_id, { ...idempotency, run_id: runId }, createdAt);
    if (repeated) return { kind: "repeated", run_id: repeated, warnings: plan.warnings };
  }
  try {
    await admitRun(host, tenant.tenant_id, limits, allowance);
    // The entry goes with the run's row: written apart, a failed insert answered 500 for a run that
    // had started, and the client's retry (without an Idempotency-Key) started a second one.
    const audit = auditStatement(env.DB, {
      tenant_id: tenant.tenant_id,
      actor: call.actor,
      action: "run.submitted",
      target: runId,
      detail: { jobs: plan.jobIds.length },
    });
    await startRun(env, plan.spec, plan.jobIds, {
      webhook_endpoint_ids: webhookIds,
      result_events,
      api_origin: host.origin,
      withRow: [audit],
    });
  } catch (err) {
    // Refused or failed: the key is free again for the same request.
    if (idempotency) await releaseIdempotencyKey(env.DB, tenant.tenant_id, idempotency.key, runId);
    throw err;
  }
  return { kind: "started", run_id: runId, warnings: plan.warnings };
}

/** How often, and how long, a repeat waits for the first request under its key to start its run. */
const HOLDER_POLL_MS = 250;
const HOLDER_POLLS = 40;
/**
 * A holder this old with no run has died between taking the key and writing its run (an isolate
 * evicted mid-submit: a refused or failed submit lets its key go): a submit writes its run within
 * seconds, so after this long the key is taken over rather than answered 409 for ever.
 */
export const STALE_HOLDER_MS = 10 * 60_000;

/**
 * Takes the key for this request (null: go on and start the run), or answers the run of the first
 * request under it. A first request still submitting is waited for: its run_id is answered only
 * once its run exists, and if it is refused (a quota) and lets the key go, this request takes the
 * key and starts the run itself, as it does when the holder took the key more than STALE_HOLDER_MS
 * ago and never wrote its run. So no caller is told of a run that never starts (a webhook sender
 * would not deliver again), no key is stuck for ever, and copies sent at once get one run and one answer.
 */
async function takeIdempotencyKey(
  db: D1Database,
  tenantId: string,
  mine: { key: string; body_hash: string; run_id: string },
  createdAt: string,
): Promise<string | null> {
  for (let poll = 0; ; poll++) {
    const holder = await reserveIdempotencyKey(db, tenantId, mine, createdAt);
    if (holder.run_id === mine.run_id) return null;
    if (holder.body_hash !== mine.body_hash) {
      throw new ApiFailure({
        code: "idempotency_conflict",
        message: "this Idempotency-Key was already used with a different body; use a new key for a new run",
      });
    }
    if (await getRun(db, tenantId, holder.run_id)) return holder.run_id;
    if (Date.parse(createdAt) - Date.parse(holder.created_at) > STALE_HOLDER_MS) {
      // Taken over, or another repeat took it over first: either way the next round reads who holds it.
      await takeOverIdempotencyKey(db, tenantId, holder, mine.run_id, createdAt);
      continue;
    }
    if (poll >= HOLDER_POLLS) {
      throw new ApiFailure({
        code: "idempotency_in_progress",
        message: "a request with this Idempotency-Key (or delivery id) is still being submitted; retry in a few seconds",
      });
    }
    await new Promise((resolve) => setTimeout(resolve, HOLDER_POLL_MS));
  }
}

/**
 * Runs may name only endpoints their tenant registered (so every delivery is signed with a secret
 * the receiver holds); says whether the run's results go to a result.created receiver.
 */
export async function requireEndpoints(env: Env, tenantId: string, ids: readonly string[]): Promise<{ result_events: boolean }> {
  const { unknown, result_events } = await webhooksOfRun(env.DB, tenantId, ids);
  const issues = unknown.map((i) => ({
    path: `webhook_endpoint_ids[${i}]`,
    message: `no webhook endpoint ${JSON.stringify(ids[i])}; list them with GET /v1/webhook-endpoints`,
  }));
  if (issues.length) throw invalidBody(issues);
  return { result_events };
}

/** Resolves `benchmark_id` to the stored benchmark; an unknown id is the caller's 400. */
async function withBenchmark(env: Env, tenantId: string, req: Omit<CreateRunRequest, "webhook_endpoint_ids">): Promise<CreateRunBody> {
  const { benchmark_id, benchmark, ...rest } = req;
  if (benchmark) return { ...rest, benchmark };
  const stored = await loadBenchmark(env.DB, env.BLOBS, tenantId, benchmark_id!);
  if (!stored) throw unknownBenchmark(benchmark_id!);
  if (!stored.benchmark) throw invalidBody([{ path: "benchmark_id", message: benchmarkBeingDeleted(benchmark_id!) }]);
  return { ...rest, benchmark: stored.benchmark };
}

/** A stored benchmark of the tenant is named (a trigger's, checked at creation), else the 400 a run gets. */
export async function requireBenchmarkId(env: Env, tenantId: string, benchmarkId: string): Promise<void> {
  if (!(await getBenchmarkRecord(env.DB, tenantId, benchmarkId))) throw unknownBenchmark(benchmarkId);
}

const unknownBenchmark = (benchmarkId: string) =>
  invalidBody([{ path: "benchmark_id", message: `no stored benchmark ${JSON.stringify(benchmarkId)}; list them with GET /v1/benchmarks` }]);

/** Keeps the named questions, in the benchmark's order; an id the benchmark lacks is a 400. */
function onlyQuestions(body: CreateRunBody, ids: readonly string[] | null | undefined): CreateRunBody {
  if (!ids) return body;
  const have = new Set(body.benchmark.questions.map((q) => q.id));
  const issues = ids.flatMap((id, i) =>
    have.has(id) ? [] : [{ path: `question_ids[${i}]`, message: `the benchmark has no question ${JSON.stringify(id)}` }],
  );
  if (issues.length) throw invalidBody(issues);
  const keep = new Set(ids);
  return { ...body, benchmark: { ...body.benchmark, questions: body.benchmark.questions.filter((q) => keep.has(q.id)) } };
}
