/**
 * ProviderLimiter — one Durable Object per (provider, base URL, key id, model): the shared budget
 * every consumer draws on before calling that provider, so hundreds of consumers on one key do
 * not stampede it. The key id is a hash of the key (`limiterName`), never the key.
 *
 * State lives in memory: it is soft (buckets refill within a minute, leases expire), and an
 * object that is evicted is one nobody has called for a while. A crash forgets leases, which at
 * worst lets a burst through; the 429 that follows shrinks the allowance again.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { type Acquire, LimiterState, type LimitSettings, type PartialLimits, PROVIDER_DEFAULTS, type ReleaseReport } from "./limiter-state";

export interface AcquireRequest {
  /** Provider interface, for the default limits. */
  provider: string;
  /** Limits over the provider's defaults (the run's `limits` for this model). */
  limits?: PartialLimits;
  estimated_tokens: number;
}

export interface LimiterView {
  in_flight: number;
  allowance: LimitSettings;
}

/**
 * A caller refused only because every slot is taken is held here for up to this long and woken
 * by the next release, instead of polling: a thousand waiting consumers polling every 50 ms
 * would be 20,000 requests a second on one object.
 */
const HOLD_MS = 2_000;

export class ProviderLimiter extends DurableObject<Env> {
  private state: LimiterState | null = null;
  private waiters: (() => void)[] = [];

  async acquire(req: AcquireRequest): Promise<Acquire> {
    const limits = { ...(PROVIDER_DEFAULTS[req.provider] ?? PROVIDER_DEFAULTS.openai_compatible!), ...req.limits };
    if (!this.state) this.state = new LimiterState(limits, Date.now());
    else if (req.limits) this.state.setLimits(limits);
    const deadline = Date.now() + HOLD_MS;
    for (;;) {
      const r = this.state.acquire(Date.now(), req.estimated_tokens);
      const left = deadline - Date.now();
      if (r.granted || r.reason !== "concurrency" || left <= 0) return r;
      await this.nextRelease(left);
    }
  }

  async release(report: ReleaseReport): Promise<void> {
    this.state?.release(Date.now(), report);
    this.waiters.shift()?.();
  }

  /** Resolves at the next release, or after `ms` (a lease may expire without one). */
  private nextRelease(ms: number): Promise<void> {
    return new Promise((resolve) => {
      let done = false;
      const wake = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        wake();
      }, ms);
      this.waiters.push(wake);
    });
  }

  async view(): Promise<LimiterView | null> {
    return this.state ? { in_flight: this.state.inFlight(), allowance: this.state.allowance() } : null;
  }
}
