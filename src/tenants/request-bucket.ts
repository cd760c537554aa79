/**
 * The per-tenant request rate: a token bucket of `quota` requests refilled evenly over `windowS`
 * seconds, so a tenant may burst up to its quota and then sustain quota/window. Pure (the clock is
 * passed in); the TenantRateLimiter Durable Object holds one per tenant.
 *
 * A caller may take a batch (`take(quota, now, {batch, holdMs})`): the first token admits its
 * request, the rest are an isolate's allowance to spend on its next requests for up to `holdMs`
 * (src/tenants/request-allowance.ts). Tokens given out that way leave the bucket at once and stay
 * counted against its capacity until `holdMs` has passed, spent or not: the bucket's tokens plus
 * those held by isolates never exceed `quota`. So any interval (a, b] admits at most
 * quota + (b − a)·quota/window requests across all isolates — what the bucket admits with no
 * batches at all (what is admitted in it is at most the bucket's tokens and the held ones at a,
 * plus the refill since). Extra tokens come only from the upper half of the bucket (and at most
 * quota/64 a batch), so held tokens that an idle isolate never spends make a tenant wait for at
 * most `holdMs`, and only after it has used half its burst.
 */
export interface BucketDecision {
  allowed: boolean;
  /** Whole requests left after this one. */
  remaining: number;
  /** Seconds until the bucket is full again (the `t` of the RateLimit header). */
  resetS: number;
  /** When refused: seconds until one request is allowed (Retry-After). */
  retryAfterS: number;
  /** Tokens given beyond this request's (an isolate's allowance, to spend before `holdMs` has passed). */
  extra?: number;
}

/** A batch's extra tokens are at most this share of the quota (and come from the bucket's upper half). */
export const MAX_EXTRA_SHARE = 1 / 64;

export class RequestBucket {
  private tokens: number;
  private at: number;
  /** Extra tokens given out and still counted against the capacity, with when they stop counting (ascending). */
  private held: { until: number; n: number }[] = [];
  private heldTotal = 0;

  constructor(
    private quota: number,
    private readonly windowS: number,
    now: number,
  ) {
    this.tokens = quota;
    this.at = now;
  }

  take(quota: number, now: number, batch: { size: number; holdMs: number } = { size: 1, holdMs: 0 }): BucketDecision {
    this.release(now);
    this.refill(now);
    if (quota !== this.quota) {
      // A changed quota applies at once; what was used so far stays used.
      this.tokens = Math.min(quota - this.heldTotal, this.tokens + (quota - this.quota));
      this.quota = quota;
    }
    const rate = this.quota / this.windowS;
    const allowed = this.tokens >= 1;
    let extra = 0;
    if (allowed) {
      this.tokens -= 1;
      const wanted = Math.max(0, Math.floor(batch.size) - 1);
      extra = Math.max(0, Math.min(wanted, Math.floor(this.quota * MAX_EXTRA_SHARE), Math.floor(this.tokens - this.quota / 2)));
      if (extra > 0 && batch.holdMs > 0) {
        this.tokens -= extra;
        this.heldTotal += extra;
        this.held.push({ until: now + batch.holdMs, n: extra });
      } else extra = 0;
    }
    return {
      allowed,
      // What this caller holds is still to be spent: it counts as left.
      remaining: Math.max(0, Math.floor(this.tokens) + extra),
      resetS: Math.ceil((this.quota - this.tokens - extra) / rate),
      retryAfterS: allowed ? 0 : Math.max(1, Math.ceil((1 - this.tokens) / rate)),
      ...(extra > 0 ? { extra } : {}),
    };
  }

  /** Held tokens whose time has passed stop counting against the capacity (they come back by refilling, not at once). */
  private release(now: number): void {
    while (this.held.length > 0 && this.held[0]!.until <= now) this.heldTotal -= this.held.shift()!.n;
  }

  private refill(now: number): void {
    const elapsedS = Math.max(0, now - this.at) / 1000;
    this.tokens = Math.min(this.quota - this.heldTotal, this.tokens + (elapsedS * this.quota) / this.windowS);
    this.at = now;
  }
}
