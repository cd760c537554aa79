/**
 * The response cache's store: R2, one object per key under `t/{tenant}/cache/v1/`. R2 rather than KV because
 * the rest of a run already lives there (no new binding), values can be large (long answers,
 * traces), and a write is readable at once from any location (KV is eventually consistent for up
 * to a minute, which would make a quick re-run miss). Expiry is a timestamp in the object's
 * metadata, checked on read; an R2 lifecycle rule on the prefix can delete stale objects.
 * Keys are SHA-256 digests of requests, so no prompt text appears in a key; secrets never reach a
 * request body, so none reach the store.
 */
import type { ResponseStore } from "../llm/caching";
import type { ModelConfig } from "../schemas/model-config";
import { CACHE_REFS } from "../storage/r2-keys";

/** A week: long enough for an iterate-and-rerun session, short enough that models' drift shows. */
export const DEFAULT_CACHE_TTL_S = 7 * 24 * 3600;

/**
 * `prefix`: the tenant's cache prefix (r2Keys.cachePrefix), so a hit never crosses tenants.
 * `runPrefix`: where the writing run records its entries (`{run prefix}/`), for DELETE /v1/runs/:id.
 */
export function r2ResponseStore(bucket: R2Bucket, now: () => number, prefix: string, runPrefix?: string): ResponseStore {
  return {
    async get(key) {
      const obj = await bucket.get(prefix + key);
      if (!obj) return null;
      const expires = Number(obj.customMetadata?.expires_at);
      if (!Number.isFinite(expires) || expires <= now()) {
        await obj.body.cancel();
        return null;
      }
      return obj.json();
    },
    async put(key, value, ttlSeconds) {
      if (runPrefix) await bucket.put(runPrefix + CACHE_REFS + key, "");
      await bucket.put(prefix + key, JSON.stringify(value), {
        httpMetadata: { contentType: "application/json" },
        customMetadata: { expires_at: String(now() + ttlSeconds * 1000) },
      });
    },
  };
}

/** The parts of a model config that change what it answers (secret names and ids do not). */
export function cacheModelScope(m: ModelConfig): Record<string, unknown> {
  return { interface: m.interface, model_name: m.model_name, base_url: m.base_url, temperature: m.temperature, max_tokens: m.max_tokens };
}
