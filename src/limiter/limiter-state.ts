/**
 * The arithmetic of one provider limiter (one key of one provider): a sliding window of requests
 * (`request-window.ts`: at most rpm requests reach the provider in any 60 s), a token bucket for
 * tokens per minute, a concurrency cap held as leases, and additive-increase /
 * multiplicative-decrease on 429s. Plain data and an injected `now`, so it is tested without a
 * Durable Object; `provider-limiter.ts` holds one of these per object.
 *
 * - A lease expires (`leaseMs`) so a caller that crashed cannot hold a slot forever.
 * - A 429 halves the allowance (rpm, tpm and concurrency together; concurrency from what was in
 *   use, so a burst far above the provider's cap comes down in one step) at most once per "generation":
 *   the 429s of calls that were already in flight when the allowance last shrank do not shrink
 *   it again (they report the old overload, not a new one).
 * - Every `increaseEveryMs` without a 429 the allowance grows by one concurrency slot and a tenth
 *   of the configured rates, up to the configured limits.
 * - A retry-after blocks the key for every caller until it has passed.
 */
import { guardOn } from "../lib/guards";
import { RequestWindow } from "./request-window";

export interface LimitSettings {
  /** requests per minute */
  rpm: number;
  /** input + output tokens per minute */
  tpm: number;
  /** calls in flight at once */
  concurrency: number;
}

export type PartialLimits = Partial<LimitSettings>;

export interface LimiterTuning {
  leaseMs: number;
  increaseEveryMs: number;
  /** Concurrency never shrinks below this share of the configured cap (nor below 1). */
  minFactor: number;
  /**
   * Rates never shrink below this share: a provider that keeps refusing is held off by its
   * retry-after, which blocks the key; halving rpm without end would only starve the run.
   */
  minRateFactor: number;
}

export const DEFAULT_TUNING: LimiterTuning = { leaseMs: 150_000, increaseEveryMs: 10_000, minFactor: 1 / 64, minRateFactor: 1 / 4 };

/**
 * Defaults per provider interface, at a middle usage tier: too low a default slows every run, too
 * high a one costs a few 429s, which shrink the allowance and block the key for their retry-after.
 * A run sets its own per model id (`limits`). OpenAI-compatible servers get a concurrency cap and
 * rates that only stop a runaway: a self-hosted server (vLLM, llama.cpp, TGI) has no request or token
 * quota, only the calls it can serve at once, and a hosted one answers 429 above its own quota, which
 * the allowance learns from. 6,000 requests a minute held a 4,000-job run (8,000 calls of one
 * model within a minute) to 5.5 × its latency bound against a fake that served all of them
 * (bench/throughput --jobs 4000 --cap 256 --key-limits concurrency=256).
 */
export const PROVIDER_DEFAULTS: Readonly<Record<string, LimitSettings>> = {
  openai: { rpm: 5_000, tpm: 2_000_000, concurrency: 64 },
  anthropic: { rpm: 1_000, tpm: 400_000, concurrency: 32 },
  openai_compatible: { rpm: 60_000, tpm: 100_000_000, concurrency: 64 },
};

export type Acquire =
  | { granted: true; lease_id: string; expires_at: number }
  | { granted: false; wait_ms: number; reason: "blocked" | "concurrency" | "rate" };

export interface ReleaseReport {
  lease_id: string;
  /** The call got a 429. */
  rate_limited?: boolean;
  retry_after_ms?: number;
  /**
   * Tokens the calls actually used (corrects the estimates taken at acquire and prepay). Absent, or
   * not a finite count ≥ 0, the estimates stand.
   */
  tokens_used?: number;
  /**
   * Calls made under the lease (default 1): a consumer hands a finished call's lease to its next
   * waiting call (src/limiter/lease-pool.ts) within the calls prepaid for it (`prepayOne`); the prepaid calls
   * not made are refunded here (any beyond them are charged).
   */
  calls?: number;
}

interface Lease {
  expires_at: number;
  /** Tokens charged so far: the estimate, once per call paid for. */
  tokens: number;
  /** The estimate of one call, for refunds. */
  need: number;
  prepaid: number;
  generation: number;
}

/** Whole requests a minute the allowance grants (AIMD makes it fractional), at least one. */
const requestLimit = (a: LimitSettings) => Math.max(1, Math.floor(a.rpm));

export class LimiterState {
  /** Share of the configured concurrency allowed now (AIMD). */
  private concFactor = 1;
  /** Share of the configured rpm and tpm allowed now (AIMD, separately: a collapse of concurrency
   * from few calls in flight must not starve the rate buckets). */
  private rateFactor = 1;
  private generation = 0;
  private lastChangeAt: number;
  private tokens: number;
  private refilledAt: number;
  private blockedUntil = 0;
  private leases = new Map<string, Lease>();
  /**
   * No lease expires before this (a lower bound: a released lease may have held it). Every acquire
   * checks for expired leases; below it the check is one comparison, not a walk of every lease.
   */
  private noExpiryBefore = Number.POSITIVE_INFINITY;
  private nextLease = 0;
  /** Lease ids of another instance (before a restart) must not release this one's leases. */
  private leasePrefix: string;
  /**
   * The calls in use when the allowance last shrank, how many of them were refused, and how many
   * came back done (not refused) so far.
   */
  // Stryker disable next-line ObjectLiteral: equivalent, read only after the first shrink has set it
  private burst = { inUse: 0, refused: 0, done: 0 };

  constructor(
    private limits: LimitSettings,
    now: number,
    private tuning: LimiterTuning = DEFAULT_TUNING,
    /** Requests per minute: every paid call, held or ended within the last minute (kept across restarts by the object). */
    private requests: RequestWindow = new RequestWindow(),
  ) {
    this.tokens = limits.tpm;
    this.leasePrefix = `l${Math.floor(now).toString(36)}.`;
    this.refilledAt = now;
    this.lastChangeAt = now;
  }

  /** Current allowance (after AIMD): what the key may use now. */
  allowance(): LimitSettings {
    return {
      rpm: Math.max(1, this.limits.rpm * this.rateFactor),
      tpm: Math.max(1, this.limits.tpm * this.rateFactor),
      concurrency: Math.max(1, Math.floor(this.limits.concurrency * this.concFactor)),
    };
  }

  inFlight(): number {
    return this.leases.size;
  }

  setLimits(limits: LimitSettings): void {
    this.limits = limits;
  }

  acquire(now: number, estimatedTokens: number): Acquire {
    this.expireLeases(now);
    this.grow(now);
    this.refill(now);
    if (now < this.blockedUntil) return { granted: false, wait_ms: this.blockedUntil - now, reason: "blocked" };
    const a = this.allowance();
    if (this.leases.size >= a.concurrency) return { granted: false, wait_ms: this.nextExpiryWait(now), reason: "concurrency" };
    const rpm = requestLimit(a);
    if (guardOn("request_window") && this.requests.count(now) >= rpm)
      return { granted: false, wait_ms: this.requests.waitMs(now, rpm), reason: "rate" };
    // A request bigger than the whole bucket still runs once the bucket is full.
    const need = Math.min(estimatedTokens, a.tpm);
    if (this.tokens < need) return { granted: false, wait_ms: Math.ceil((need - this.tokens) / (a.tpm / 60_000)), reason: "rate" };
    this.tokens -= need;
    // Stryker disable next-line UpdateOperator: equivalent, a lease id only has to be unique
    const lease_id = `${this.leasePrefix}${++this.nextLease}`;
    const expires_at = now + this.tuning.leaseMs;
    this.requests.hold(lease_id, expires_at);
    this.leases.set(lease_id, { expires_at, tokens: need, need, prepaid: 0, generation: this.generation });
    this.noExpiryBefore = Math.min(this.noExpiryBefore, expires_at);
    return { granted: true, lease_id, expires_at };
  }

  /**
   * One more call for a granted lease to hand on, if the buckets hold it now: handed-on calls never
   * ask again, so they are paid for here, while the buckets can say no.
   */
  prepayOne(lease_id: string): boolean {
    const lease = this.leases.get(lease_id);
    if (!lease || this.tokens < lease.need) return false;
    if (guardOn("request_window") && this.requests.size() >= requestLimit(this.allowance())) return false;
    this.requests.hold(lease_id, lease.expires_at);
    this.tokens -= lease.need;
    lease.prepaid += 1;
    lease.tokens += lease.need;
    return true;
  }

  /**
   * Whether a lease its holder parks between requests (src/limiter/parked-lease.ts) may be
   * prepaid `calls` calls: the key stays under half its concurrency (the leases held, this one
   * included) and under half its requests per minute with all of them counted, so a parked slot
   * and its prepaid calls never stand in another caller's way (a key allowed one call at a time
   * never parks).
   */
  roomToPark(now: number, calls: number): boolean {
    const a = this.allowance();
    return this.leases.size * 2 <= a.concurrency && (this.requests.count(now) + calls) * 2 <= requestLimit(a);
  }

  release(now: number, report: ReleaseReport): void {
    const lease = this.leases.get(report.lease_id);
    this.leases.delete(report.lease_id);
    if (lease) this.settle(now, report.lease_id, lease, report);
    if (!report.rate_limited) {
      if (lease && lease.generation === this.generation - 1) this.burst.done += 1;
      return;
    }
    if (report.retry_after_ms !== undefined) this.blockedUntil = Math.max(this.blockedUntil, now + report.retry_after_ms);
    if (lease && lease.generation < this.generation) {
      // A refusal of the burst that caused the last shrink: the provider took at most what was
      // in use minus what it refused, so the cap follows that down (never up).
      if (lease.generation === this.generation - 1) this.narrowToAccepted();
      return;
    }
    // Halve what was in use when the provider said no (this call included), not the configured
    // cap: 16 in flight against a server that takes 8 goes to 8 at once, not 64 → 32 → 16 → 8.
    const inUse = Math.min(this.allowance().concurrency, this.leases.size + 1);
    const halved = Math.max(1, Math.floor(inUse / 2)) / Math.max(1, this.limits.concurrency);
    this.concFactor = Math.max(this.tuning.minFactor, Math.min(this.concFactor / 2, halved));
    this.rateFactor = Math.max(this.tuning.minRateFactor, this.rateFactor / 2);
    this.generation += 1;
    this.burst = { inUse, refused: 1, done: 0 };
    this.lastChangeAt = now;
    this.tokens = Math.min(this.tokens, this.allowance().tpm);
  }

  /** Refunds the prepaid calls not made (charges any made beyond them) and corrects tokens to what was used. */
  private settle(now: number, lease_id: string, lease: Lease, report: ReleaseReport): void {
    // The calls made count a minute from now, the release (the latest any of them reached the
    // provider); at least the first, which the grant was for.
    const made = Number.isFinite(report.calls) ? Math.max(1, Math.floor(report.calls!)) : 1;
    this.requests.finish(lease_id, now, made);
    const unused = Math.max(0, lease.prepaid - (made - 1));
    // A count that is no count of tokens (NaN, ±Infinity, negative: a usage the provider did not
    // report well) counts as absent: subtracted, it would turn the bucket into NaN, which refuses
    // nothing, and the tokens-per-minute limit would be off for good.
    const used = report.tokens_used ?? Number.NaN;
    if (Number.isFinite(used) && used >= 0) this.tokens -= used - lease.tokens;
    else this.tokens += unused * lease.need;
    this.tokens = Math.min(this.tokens, this.allowance().tpm);
  }

  private narrowToAccepted(): void {
    this.burst.refused += 1;
    // A call of the burst that came back done before this refusal freed a slot at the provider,
    // which another call of the burst may have taken: the provider held at most in use − refused −
    // done at once. Unknowable exactly when they interleave, so never below half of what it took.
    const took = this.burst.inUse - this.burst.refused;
    const accepted = Math.max(1, Math.ceil(took / 2), took - this.burst.done);
    // Down to what the provider accepted, never up.
    this.concFactor = Math.max(this.tuning.minFactor, Math.min(this.concFactor, accepted / Math.max(1, this.limits.concurrency)));
  }

  private grow(now: number): void {
    // None while the clock stands still or steps back.
    const steps = Math.max(0, Math.floor((now - this.lastChangeAt) / this.tuning.increaseEveryMs));
    // One concurrency slot, and a tenth of the configured rates, per quiet interval.
    this.concFactor = Math.min(1, this.concFactor + steps / Math.max(1, this.limits.concurrency));
    this.rateFactor = Math.min(1, this.rateFactor + steps / 10);
    this.lastChangeAt += steps * this.tuning.increaseEveryMs;
  }

  private refill(now: number): void {
    const a = this.allowance();
    const dt = Math.max(0, now - this.refilledAt);
    this.tokens = Math.min(a.tpm, this.tokens + (dt * a.tpm) / 60_000);
    this.refilledAt = now;
  }

  private expireLeases(now: number): void {
    if (now < this.noExpiryBefore) return;
    let next = Number.POSITIVE_INFINITY;
    for (const [id, l] of this.leases) {
      if (l.expires_at > now) {
        next = Math.min(next, l.expires_at);
        continue;
      }
      this.leases.delete(id);
      // Its holder never said how many calls it made: every prepaid one, until the expiry.
      this.requests.finish(id, l.expires_at, 1 + l.prepaid);
    }
    this.noExpiryBefore = next;
  }

  /** How long until a slot may free up on its own (callers also retry sooner, on their own poll). */
  private nextExpiryWait(now: number): number {
    let soonest = Infinity;
    for (const l of this.leases.values()) soonest = Math.min(soonest, l.expires_at - now);
    return Math.max(1, Math.min(soonest, 50));
  }
}
