/**
 * An isolate's allowance of a tenant's request tokens: most requests spend a token taken earlier
 * instead of calling the tenant's TenantRateLimiter (a Durable Object round trip per request was
 * the largest part of what the request rate cost /v1/judge; bench/judge).
 *
 * When an isolate has no token of the tenant left, its request asks the object for a batch
 * (`ALLOWANCE_BATCH`): one token for itself, and as many more as the bucket gives (request-bucket.ts:
 * only from its upper half, at most quota/64). The isolate spends them on that tenant's next
 * requests for `ALLOWANCE_MS`, counted from before it asked, so never after the object stops
 * counting them as held; what is left then lapses. The bound this keeps (request-bucket.ts): the
 * bucket's tokens plus every isolate's held ones never exceed the quota, so no interval admits
 * more across isolates than the bucket alone would admit in it. A changed quota drops the
 * isolate's allowance (its tokens lapse on the object's side too).
 *
 * Plain data with `now` passed in; workerd settles a promise only in the request that made it, so
 * nothing here is a promise shared between requests: two requests of an isolate that find it
 * empty at once each ask the object.
 */
import type { BucketDecision } from "./request-bucket";

/** How long an isolate may spend a batch's tokens. */
export const ALLOWANCE_MS = 1_000;
/** Tokens asked for at once (this request's included). */
export const ALLOWANCE_BATCH = 16;
/** Tenants an isolate keeps allowances for (the oldest go first). */
const MAX_TENANTS = 1_000;

interface Allowance {
  quota: number;
  left: number;
  until: number;
  /** `remaining` as the object said after the batch (this isolate's tokens included), less what was spent since. */
  remaining: number;
}

export class RequestAllowances {
  private byTenant = new Map<string, Allowance>();

  /** A token of the isolate's allowance for `tenant` at `quota`, as the decision the object would have sent; undefined when none is left. */
  spend(tenant: string, quota: number, now: number, windowS: number): BucketDecision | undefined {
    const a = this.byTenant.get(tenant);
    if (!a) return undefined;
    if (a.quota !== quota || now >= a.until || now < a.until - ALLOWANCE_MS || a.left < 1) {
      this.byTenant.delete(tenant);
      return undefined;
    }
    a.left -= 1;
    a.remaining = Math.max(0, a.remaining - 1);
    if (a.left < 1) this.byTenant.delete(tenant);
    return { allowed: true, remaining: a.remaining, resetS: Math.ceil((quota - a.remaining) / (quota / windowS)), retryAfterS: 0 };
  }

  /** The object's answer to a batch asked at `askedAt`: its extra tokens become the allowance. */
  keep(tenant: string, quota: number, askedAt: number, d: BucketDecision): void {
    const extra = d.allowed ? (d.extra ?? 0) : 0;
    if (extra < 1) return;
    this.byTenant.delete(tenant);
    this.byTenant.set(tenant, { quota, left: extra, until: askedAt + ALLOWANCE_MS, remaining: d.remaining });
    if (this.byTenant.size > MAX_TENANTS) this.byTenant.delete(this.byTenant.keys().next().value!);
  }
}
