/**
 * The edge side of the shared limiter: which ProviderLimiter object a model's calls go through,
 * and a `LimiterClient` over it. Objects are named by a hash of (interface, base URL, key, model):
 * providers limit per key and per model, and the name must never reveal the key.
 */
import type { LimiterClient } from "./limited";
import { leasePool, type SlotSource } from "./lease-pool";
import type { ResolvedModel } from "../llm/factory";
import { sha256Hex } from "../lib/sha256";
import type { ProviderLimiter } from "./provider-limiter";
import { DEFAULT_TUNING, type PartialLimits } from "./limiter-state";

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

/** The limiter as a source of slots in batches, for one invocation's lease pool. */
export function slotSource(
  ns: DurableObjectNamespace<ProviderLimiter>,
  model: Pick<ResolvedModel, "interface" | "base_url" | "model_name">,
  key: string,
  limits?: PartialLimits,
  scope?: string,
): SlotSource {
  let stub: DurableObjectStub<ProviderLimiter> | undefined;
  const get = async () => (stub ??= ns.getByName(await limiterName(model, key, scope)));
  return {
    acquire: async ({ count, estimatedTokens, since, prepay }) => {
      const r = await (await get()).acquire({
        provider: model.interface,
        estimated_tokens: estimatedTokens,
        since,
        count,
        prepay,
        ...(limits ? { limits } : {}),
      });
      return r.granted
        ? { granted: true, lease_ids: r.lease_ids, prepaid_calls: r.prepaid_calls }
        : { granted: false, wait_ms: r.wait_ms, reason: r.reason };
    },
    release: async (report) => void (await (await get()).release(report)),
  };
}

/**
 * One lease pool per limiter object for the calls of one invocation (never per isolate: workerd
 * settles a promise only in the request that made it). Models with the same key and model name
 * share their pool, as they share the object.
 */
/** How many times a pooled lease may be handed on (each one prepaid from the rate buckets). */
const HAND_ONS_PER_LEASE = 4;

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
      if (!p) pools.set(id, (p = leasePool(slotSource(ns, model, key, limits), { now: Date.now, maxChainMs, prepay: HAND_ONS_PER_LEASE })));
      return p;
    });
    return {
      acquire: async (tokens, since) => (await pool).acquire(tokens, since),
      release: async (report) => (await pool).release(report),
    };
  };
}
