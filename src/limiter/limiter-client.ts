/**
 * The edge side of the shared limiter: which ProviderLimiter object a model's calls go through,
 * and a `LimiterClient` over it. Objects are named by a hash of (interface, base URL, key, model):
 * providers limit per key and per model, and the name must never reveal the key.
 */
import type { LimiterClient } from "./limited";
import { leasePool, type RateLimitCount, type SlotSource } from "./lease-pool";
import { ParkedLeases, parkingClient } from "./parked-lease";
import type { ResolvedModel } from "../llm/factory";
import { sha256Hex } from "../lib/sha256";
import type { ProviderLimiter } from "./provider-limiter";
import { DEFAULT_TUNING, type PartialLimits, type ReleaseReport } from "./limiter-state";

/** `scope`: a run's own limiter for its `limits` (own-share.ts) is named for the run as well. */
export async function limiterName(
  model: Pick<ResolvedModel, "interface" | "base_url" | "model_name">,
  key: string,
  scope?: string,
): Promise<string> {
  const text = JSON.stringify([model.interface, model.base_url ?? "", key, model.model_name, ...(scope === undefined ? [] : [scope])]);
  // The first 16 bytes of the digest (32 hex digits) name the Durable Object.
  return (await sha256Hex(text)).slice(0, 32);
}

/** One call, one lease: the limiter as a /v1/judge request (no batch to share leases with) uses it. */
export function limiterClient(
  ns: DurableObjectNamespace<ProviderLimiter>,
  model: Pick<ResolvedModel, "interface" | "base_url" | "model_name">,
  key: string,
  limits?: PartialLimits,
  scope?: string,
): LimiterClient {
  const source = slotSource(ns, model, key, limits, scope);
  return {
    acquire: async (estimatedTokens, since) => {
      const r = await source.acquire({ count: 1, estimatedTokens, since: since ?? Date.now(), prepay: 0 });
      return r.granted ? { granted: true, lease_id: r.lease_ids[0]! } : r;
    },
    release: (report) => source.release(report),
  };
}

/** This isolate's parked leases (parked-lease.ts), by limiter object name. */
const parked = new ParkedLeases();
/** Calls a parked lease is prepaid for; a lease parked this long without being taken goes back. */
const PARK_PREPAY = 8;
const PARK_IDLE_MS = 100;

/**
 * One request's client for a key's limiter that takes the lease its isolate parked after an
 * earlier request, and parks its own after the call (parked-lease.ts): a /v1/judge request, whose
 * one call has no other call of its invocation to hand a lease to.
 */
export function parkingLimiterClient(
  ns: DurableObjectNamespace<ProviderLimiter>,
  model: Pick<ResolvedModel, "interface" | "base_url" | "model_name">,
  key: string,
  limits: PartialLimits | undefined,
  opts: { settleLater: (work: Promise<unknown>) => void; sleep: (ms: number) => Promise<void>; modelTimeoutMs: number },
): LimiterClient {
  // A lease taken again must come back before the limiter expires it, even if its call runs to the
  // model's timeout (5 s spare for the round trips); a model with another timeout parks apart.
  const maxChainMs = Math.max(0, DEFAULT_TUNING.leaseMs - opts.modelTimeoutMs - 5_000);
  const name = limiterName(model, key).then((n) => `${n}#${opts.modelTimeoutMs}`);
  return parkingClient(slotSource(ns, model, key, limits), name, parked, {
    now: Date.now,
    sleep: opts.sleep,
    settleLater: opts.settleLater,
    prepay: PARK_PREPAY,
    maxChainMs,
    idleMs: PARK_IDLE_MS,
  });
}

/**
 * The limiter as a source of slots in batches, for one invocation's lease pool. A release goes to
 * the limiter at once unless one of this pool's release calls is still on its way; the releases
 * made meanwhile go together (`releaseAll`) as soon as it returns (bench/throughput: a release per
 * lease was 332 of the 566 calls to the key's object for 800 model calls).
 */
export function slotSource(
  ns: DurableObjectNamespace<ProviderLimiter>,
  model: Pick<ResolvedModel, "interface" | "base_url" | "model_name">,
  key: string,
  limits?: PartialLimits,
  scope?: string,
): SlotSource {
  let stub: DurableObjectStub<ProviderLimiter> | undefined;
  const get = async () => (stub ??= ns.getByName(await limiterName(model, key, scope)));
  const send = async (reports: ReleaseReport[]) => void (await (await get()).releaseAll(reports));
  const releases = behindInFlight<ReleaseReport>(send);
  return {
    acquire: async ({ count, estimatedTokens, since, prepay, park }) => {
      const r = await (await get()).acquire({
        provider: model.interface,
        estimated_tokens: estimatedTokens,
        since,
        count,
        prepay,
        ...(park ? { park } : {}),
        ...(limits ? { limits } : {}),
      });
      return r.granted
        ? { granted: true, lease_ids: r.lease_ids, prepaid_calls: r.prepaid_calls }
        : { granted: false, wait_ms: r.wait_ms, reason: r.reason };
    },
    // A 429 does not wait behind a release in flight: until the limiter hears of it, it may grant
    // slots for calls inside the provider's retry-after window (lease-pool.ts).
    release: (report) => (report.rate_limited ? send([report]) : releases(report)),
  };
}

/**
 * `send` at once when no call of it is in flight; what is given while one is goes in the next call,
 * made as soon as that one returns. Each caller waits for its own call. Never behind a timer: a
 * release held back keeps its lease's prepaid calls counted in the key's request window, and every
 * call refused meanwhile is told to wait the full minute (scenario 6 stalled when the releases of
 * a turn waited for a setTimeout(0), which a busy workerd ran 0.2–3 s late: 5ad69e2, reverted in
 * e0f2b12). Here a release waits at most for one round trip to the limiter.
 */
export function behindInFlight<T>(send: (items: T[]) => Promise<void>): (item: T) => Promise<void> {
  let queued: { item: T; settle: (err?: unknown) => void }[] = [];
  let inFlight = false;
  const go = () => {
    const sent = queued;
    queued = [];
    inFlight = true;
    const done = (err?: unknown) => {
      inFlight = false;
      // The next call leaves before this one's callers resume, so nothing queued waits on them.
      if (queued.length > 0) go();
      for (const q of sent) q.settle(err);
    };
    send(sent.map((q) => q.item)).then(
      () => done(),
      (err: unknown) => done(err ?? new Error("release failed")),
    );
  };
  return (item) =>
    new Promise<void>((resolve, reject) => {
      queued.push({ item, settle: (err) => (err === undefined ? resolve() : reject(err)) });
      if (!inFlight) go();
    });
}

/**
 * One lease pool per limiter object for the calls of one invocation (never per isolate: workerd
 * settles a promise only in the request that made it). Models with the same key and model name
 * share their pool, as they share the object.
 */
/** How many times a pooled lease may be handed on (each one prepaid from the rate buckets). */
const HAND_ONS_PER_LEASE = 4;

/**
 * The 429s each key's calls in this isolate got, by limiter object name: every invocation's pool
 * on the key hears of one at once, whatever its calls' timeout. A few bytes a key the isolate has
 * called, kept for its life.
 */
const rateLimitCounts = new Map<string, RateLimitCount>();

export function poolRegistry(ns: DurableObjectNamespace<ProviderLimiter>, opts: { modelTimeoutMs: number }) {
  const pools = new Map<string, LimiterClient>();
  return (
    model: Pick<ResolvedModel, "interface" | "base_url" | "model_name">,
    key: string,
    limits?: PartialLimits,
    timeoutMs = opts.modelTimeoutMs,
  ): LimiterClient => {
    // A lease handed on must come back before the limiter expires it, even if its last call runs
    // to the model's timeout (5 s spare for the round trips). Models with another timeout get their own pool.
    const maxChainMs = Math.max(0, DEFAULT_TUNING.leaseMs - timeoutMs - 5_000);
    const pool = limiterName(model, key).then((name) => {
      const id = `${name}#${timeoutMs}`;
      let p = pools.get(id);
      if (!p) {
        let rateLimits = rateLimitCounts.get(name);
        if (!rateLimits) rateLimitCounts.set(name, (rateLimits = { seen: 0, told: 0 }));
        const source = slotSource(ns, model, key, limits);
        pools.set(id, (p = leasePool(source, { now: Date.now, maxChainMs, prepay: HAND_ONS_PER_LEASE, rateLimits })));
      }
      return p;
    });
    // Asked synchronously (limited.ts, right after a grant, which came through the pool).
    let ready: LimiterClient | undefined;
    void pool.then((p) => (ready = p));
    return {
      acquire: async (tokens, since) => (await pool).acquire(tokens, since),
      release: async (report) => (await pool).release(report),
      usable: (lease_id) => ready?.usable?.(lease_id) ?? true,
    };
  };
}
