/**
 * TenantRateLimiter — one Durable Object per tenant (named by tenant id) holding its request
 * bucket. State lives in memory, like the ProviderLimiter's: an evicted object is one nobody has
 * called for a while, and by then the bucket has refilled anyway.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { type BucketDecision, RequestBucket } from "./request-bucket";

export const REQUEST_WINDOW_S = 60;

export class TenantRateLimiter extends DurableObject<Env> {
  private bucket: RequestBucket | null = null;

  take(quota: number): BucketDecision {
    const now = Date.now();
    this.bucket ??= new RequestBucket(quota, REQUEST_WINDOW_S, now);
    return this.bucket.take(quota, now);
  }
}
