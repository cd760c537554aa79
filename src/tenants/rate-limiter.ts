/**
 * TenantRateLimiter — one Durable Object per tenant (named by tenant id) holding its request
 * bucket. State lives in memory, like the ProviderLimiter's: an evicted object is one nobody has
 * called for a while, and by then the bucket has refilled anyway (and every isolate's allowance
 * from it has lapsed: they last ALLOWANCE_MS).
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { type BucketDecision, RequestBucket } from "./request-bucket";

export const REQUEST_WINDOW_S = 60;

export class TenantRateLimiter extends DurableObject<Env> {
  private bucket: RequestBucket | null = null;

  /** One request's token; with `batch`, up to batch.size − 1 more for the caller to spend within batch.holdMs (request-allowance.ts). */
  take(quota: number, batch?: { size: number; holdMs: number }): BucketDecision {
    const now = Date.now();
    this.bucket ??= new RequestBucket(quota, REQUEST_WINDOW_S, now);
    return this.bucket.take(quota, now, batch);
  }
}
