/**
 * Queue consumer. Each message is acked or retried on its own; the batch never throws (locally a
 * throw redelivers the whole batch, acked messages included). Unexpected errors retry the message
 * with backoff; after the queue's max_retries it lands in the dead-letter queue, whose handler
 * marks the job dead so the run can still finish (as `partial`).
 */
import type { Env } from "../env";
import type { ModelPort } from "../llm/port";
import type { ModelConfig } from "../schemas/model-config";
import { JobMessage } from "../schemas/queue";
import { coordinatorName } from "../storage/r2-keys";
import { coordinatorOfJob, rootNameOf } from "../coordinator/shards";
import { log } from "../log";
import { mapLimited } from "../lib/map-limited";
import { createCodeVerifier } from "../adapters/code-verifier";
import { rowBatcher } from "./row-batcher";
import { type BatchTarget, coordinatorBatcher, DEFAULT_COORDINATOR_BATCHING } from "./coordinator-batcher";
import { cancelGate, gatedPort, noteRunState } from "./cancel-gate";
import { type JobActivity, jobActivity } from "./job-activity";
import { type CoordinatorPort, type JobDeps, runJob } from "./job-runner";
import { type ResultWrite, writeResults } from "./save-step";
import { createTavilySearch, TAVILY_SECRET } from "../adapters/search-tavily";
import { guardedFetch } from "../outbound/guarded-fetch";
import { mcpTools } from "../mcp/toolbox";
import { embeddingPlace, limitedAdapter, nonceSource, retrySettings } from "../adapters/edge-models";
import { edgeConfig } from "../config";
import { type KeyRing, type TenantKeyRing, tenantKeyRing } from "../tenants/key-ring";
import { secretNamesIn } from "../tenants/secret-names";
import type { RunSpec } from "../storage/run-spec";
import { DEFAULT_TENANT, getTenant, type TenantRecord } from "../tenants/tenants-repo";
import { auditOnce, OPERATOR } from "../tenants/audit";
import { poolRegistry } from "../limiter/limiter-client";
import { portInLine } from "../limiter/limited";
import type { RunShareOf } from "./job-ports";
import { handleDeadLetter } from "./dead-letter";

/**
 * A result waits at most this long for others to share its D1 write, and less once every job of
 * the invocation waits or while jobs wait to start (job-activity.ts). bench/throughput (N 400, C
 * 64): a 25 ms window made 145 D1 batches for 400 results, a 250 ms one 36.
 */
const RESULT_ROW_BATCH = { windowMs: 250, maxRows: 100 };
/** The batchers' window while some of the invocation's jobs wait for a place to start (job-activity.ts). */
const SHORT_BATCH_WINDOW_MS = 20;

export async function handleQueueBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const deadLetters = batch.queue.endsWith("-dlq");
  const activity = jobActivity(batch.messages.length, SHORT_BATCH_WINDOW_MS);
  const deps = jobDeps(env, activity);
  const deferrals: Deferrals = {
    max: edgeConfig(env).jobMaxDeferrals,
    send: async (body, delaySeconds) => void (await env.JOBS.send(body, { delaySeconds })),
  };
  // Jobs of one batch run side by side, by default 4, within the 6 simultaneous connections of an
  // invocation. The JOB_CONCURRENCY var raises it (up to the batch size): in production connections
  // beyond 6 wait, so it mostly matters locally, where one batch is delivered at a time
  // (bench/throughput sets it to the batch size).
  await mapLimited(batch.messages, edgeConfig(env).jobConcurrency, (msg) =>
    deadLetters ? handleDeadLetter(msg, env) : activity.run(() => handleJobMessage(msg, deps, deferrals)),
  );
}

/** Where a job waiting out a retry-after goes back to, and how many times it may. */
interface Deferrals {
  max: number;
  send: (body: JobMessage, delaySeconds: number) => Promise<void>;
}

async function handleJobMessage(msg: Message<unknown>, deps: JobDeps, deferrals: Deferrals): Promise<void> {
  const parsed = JobMessage.safeParse(msg.body);
  if (!parsed.success) {
    log.warn("queue_message_malformed", { id: msg.id });
    msg.ack(); // a malformed message will never succeed; retrying it only burns deliveries
    return;
  }
  try {
    const outcome = await runJob(parsed.data, deps);
    const deferred = parsed.data.deferrals ?? 0;
    if (outcome.kind === "retry" && outcome.deferral && deferred < deferrals.max) {
      // Delayed, not failed: a message retried would spend one of the queue's deliveries (max_retries,
      // then the dead-letter queue), so a copy goes back with the delay and this one is acked. Its
      // count of deferrals tells the runner which claims spent none of the job's deliveries.
      log.info("job_deferred", { ...parsed.data, delay_s: outcome.delaySeconds, note: outcome.note });
      await deferrals.send({ ...parsed.data, deferrals: deferred + 1 }, outcome.delaySeconds);
      msg.ack();
    } else if (outcome.kind === "retry") {
      log.info("job_retry", { ...parsed.data, delay_s: outcome.delaySeconds, note: outcome.note });
      msg.retry({ delaySeconds: outcome.delaySeconds });
    } else {
      msg.ack();
    }
  } catch (err) {
    log.warn("job_threw", { ...parsed.data, attempts: msg.attempts, error: String(err) });
    msg.retry({ delaySeconds: Math.min(60, deps.retryBaseDelaySeconds * 2 ** (msg.attempts - 1)) });
  }
}

function jobDeps(env: Env, activity: JobActivity): JobDeps {
  // Keyed by the config object itself: spec objects are cached per isolate, so one port serves a
  // model for the whole batch without serialising configs (manual answers can be megabytes).
  const ports = new WeakMap<ModelConfig, ModelPort>();
  const coordinators = new Map<string, CoordinatorPort>();
  // The batch's calls to each provider key share their leases (src/limiter/lease-pool.ts).
  const pools = poolRegistry(env.LIMITER, { modelTimeoutMs: edgeConfig(env).modelTimeoutMs });
  // Each tenant's provider keys, each read and decrypted once per batch when a run's job needs it (src/tenants/key-ring.ts).
  const rings = new Map<string, Promise<{ tenant: TenantRecord; keys: TenantKeyRing }>>();
  const loaded = new Map<string, KeyRing>();
  const searches = new Map<string, ReturnType<typeof searchPort>>();
  const cancels = cancelGate(async (name) => (await env.RUNS.getByName(name).runState()).cancelled, Date.now);
  /** The tenant's row and key ring, read once per batch. */
  const tenantOf = (tenantId: string | undefined) => {
    const id = tenantId ?? DEFAULT_TENANT;
    let ring = rings.get(id);
    if (!ring) {
      ring = getTenant(env.DB, id).then((t) => {
        if (!t) throw new Error(`tenant ${id} of a queued run does not exist`);
        return { tenant: t, keys: tenantKeyRing(env, t) };
      });
      rings.set(id, ring);
      ring.catch(() => rings.delete(id));
    }
    return ring;
  };
  const ringOf = (tenantId: string | undefined) => {
    const ring = loaded.get(tenantId ?? DEFAULT_TENANT);
    if (!ring) throw new Error(`provider keys of tenant ${tenantId ?? DEFAULT_TENANT} were not loaded before use`);
    return ring;
  };
  return {
    blobs: env.BLOBS,
    db: env.DB,
    // Results finishing close together share one D1 write, their ledger rows included
    // (bench/throughput: D1 calls were a visible share of the worker's CPU).
    writeResultRow: rowBatcher((items: ResultWrite[]) => writeResults(env.DB, items), { ...RESULT_ROW_BATCH, activity }),
    // A batch of jobs shares its calls to each run's coordinator (coordinator-batcher.ts).
    coordinator: (name) => {
      let port = coordinators.get(name);
      if (!port) {
        // The gate knows runs by their root coordinator's name; a shard's answers carry the run's flag.
        const onRunState = (cancelled: boolean, asOf: number) => noteRunState(rootNameOf(name), cancelled, asOf);
        coordinators.set(
          name,
          (port = coordinatorBatcher(freshStubs(env, name), { ...DEFAULT_COORDINATOR_BATCHING, onRunState, activity })),
        );
      }
      return port;
    },
    prepareTenant: async (tenantId, spec) => {
      const { keys } = await tenantOf(tenantId);
      await keys.open(specSecretNames(spec));
      loaded.set(tenantId ?? DEFAULT_TENANT, keys.ring);
    },
    // The row is read once per batch: a tenant disabled now stops its runs from the next batch on.
    tenantDisabled: async (tenantId) => (await tenantOf(tenantId)).tenant.disabled,
    cancelForDisabledTenant: async (msg) => {
      const outcome = await env.RUNS.getByName(coordinatorOfJob({ run_id: msg.run_id, tenant_id: msg.tenant_id })).cancel();
      if (outcome.kind !== "cancelled") return;
      // Each redelivery writes it unless one was: a first attempt whose insert failed is audited by the next.
      await auditOnce(
        env.DB,
        {
          tenant_id: msg.tenant_id ?? DEFAULT_TENANT,
          actor: OPERATOR,
          action: "run.cancelled",
          target: msg.run_id,
          detail: { cancelled_at: outcome.cancelled_at, reason: "tenant disabled" },
        },
        outcome.cancelled_at,
      ).run();
    },
    portFor: (model: ModelConfig, run: RunShareOf, lineSince: number) => {
      // Every call of a run's job checks that the run was not cancelled before it asks for a
      // lease and again once granted, just before it starts (cancel-gate.ts).
      const gate = (p: ModelPort) => gatedPort(p, cancels, coordinatorName(run));
      let limited = ports.get(model);
      if (!limited) {
        limited = limitedAdapter(env, ringOf(run.tenant_id), model, { pools, run: { run_id: run.run_id, limits: run.limits }, gate });
        ports.set(model, limited);
      }
      // The adapter is the batch's; the job's calls take their place in the limiter's line from its start.
      return gate(portInLine(limited, lineSince));
    },
    embeddingPlace: embeddingPlace(env),
    nonceFor: (identity: string) => nonceSource(env, identity),
    clock: { now: () => Date.now() },
    log,
    codeVerifier: createCodeVerifier(),
    // MCP servers through the outbound policy; auth headers from the tenant's secrets by name.
    agentToolsFor: (tenantId) => {
      const ring = ringOf(tenantId);
      return mcpTools({
        policy: edgeConfig(env).outbound,
        secret: (name, url) => ring.mcpSecret(name, url),
        knownSecrets: () => ring.knownSecrets(),
      });
    },
    searchFor: (tenantId) => {
      const id = tenantId ?? DEFAULT_TENANT;
      if (!searches.has(id)) searches.set(id, searchPort(ringOf(id).secret, env));
      return searches.get(id);
    },
    maxAttempts: edgeConfig(env).jobMaxAttempts,
    retryBaseDelaySeconds: edgeConfig(env).jobRetryBaseDelaySeconds,
    ...retrySettings(env),
  };
}

/**
 * The run's coordinator through a new stub for every call. A stub whose object was reset (a deploy,
 * an eviction, an error that broke its output gate) stays broken for the whole invocation: the
 * jobs that were mid-call hand themselves back, but their `release` went through the same broken
 * stub, so each stayed leased for LEASE_MS and its redeliveries were refused as busy until then
 * (test/reliability scenario 4). Making a stub is local; it costs no round trip.
 */
function freshStubs(env: Env, name: string): BatchTarget {
  return {
    applyBatch: (ops) => env.RUNS.getByName(name).applyBatch(ops),
    release: (jobId: string) => env.RUNS.getByName(name).release(jobId),
    completeJob: (jobId: string) => env.RUNS.getByName(name).completeJob(jobId),
  };
}

/** A spec's secret names, walked once per spec object (specs are kept per isolate, and every job of a run asks). */
const specNames = new WeakMap<RunSpec, Set<string>>();
function specSecretNames(spec: RunSpec): Set<string> {
  let names = specNames.get(spec);
  if (!names) specNames.set(spec, (names = secretNamesIn(spec)));
  return names;
}

/** Tavily-compatible search when its key is set; TAVILY_BASE_URL (a var) points it elsewhere. */
function searchPort(secret: (name: string) => string | undefined, env: Env) {
  const apiKey = secret(TAVILY_SECRET);
  if (!apiKey) return undefined;
  return createTavilySearch({ apiKey, baseUrl: edgeConfig(env).tavilyBaseUrl, fetch: guardedFetch(edgeConfig(env).outbound) });
}
