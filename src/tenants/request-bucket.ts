/**
 * The per-tenant request rate: a token bucket of `quota` requests refilled evenly over `windowS`
 * seconds, so a tenant may burst up to its quota and then sustain quota/window. Pure (the clock is
 * passed in); the TenantRateLimiter Durable Object holds one per tenant.
 */
export interface BucketDecision {
  allowed: boolean;
  /** Whole requests left after this one. */
  remaining: number;
  /** Seconds until the bucket is full again (the `t` of the RateLimit header). */
  resetS: number;
  /** When refused: seconds until one request is allowed (Retry-After). */
  retryAfterS: number;
}

export class RequestBucket {
  private tokens: number;
  private at: number;

  constructor(
    private quota: number,
    private readonly windowS: number,
    now: number,
  ) {
    this.tokens = quota;
    this.at = now;
  }

  take(quota: number, now: number): BucketDecision {
    this.refill(now);
    if (quota !== this.quota) {
      // A changed quota applies at once; what was used so far stays used.
      this.tokens = Math.min(quota, this.tokens + (quota - this.quota));
      this.quota = quota;
    }
    const rate = this.quota / this.windowS;
    const allowed = this.tokens >= 1;
    if (allowed) this.tokens -= 1;
    return {
      allowed,
      remaining: Math.max(0, Math.floor(this.tokens)),
      resetS: Math.ceil((this.quota - this.tokens) / rate),
      retryAfterS: allowed ? 0 : Math.max(1, Math.ceil((1 - this.tokens) / rate)),
    };
  }

  private refill(now: number): void {
    const elapsedS = Math.max(0, now - this.at) / 1000;
    this.tokens = Math.min(this.quota, this.tokens + (elapsedS * this.quota) / this.windowS);
    this.at = now;
  }
}
