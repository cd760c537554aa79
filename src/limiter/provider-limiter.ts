/**
 * ProviderLimiter — one Durable Object per (provider, base URL, key id, model): the shared budget
 * every consumer draws on before calling that provider, so hundreds of consumers on one key do
 * not stampede it. The key id is a hash of the key (`limiterName`), never the key.
 *
 * State lives in memory: it is soft (the token bucket refills within a minute, leases expire), and an
 * object that is evicted is one nobody has called for a while. A crash forgets leases and the AIMD
 * allowance; the 429 that follows shrinks it again. Only the requests of the last minute are kept
 * in the object's storage (src/limiter/request-window.ts): forgetting them would let another rpm
 * through within the minute.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import {
  type Acquire,
  DEFAULT_TUNING,
  LimiterState,
  type LimitSettings,
  type PartialLimits,
  PROVIDER_DEFAULTS,
  type ReleaseReport,
} from "./limiter-state";
import { RequestWindow } from "./request-window";
import { coalescedWindowStore } from "./window-store";

export interface AcquireRequest {
  /** Provider interface, for the default limits. */
  provider: string;
  /** Limits over the provider's defaults (the run's `limits` for this model). */
  limits?: PartialLimits;
  estimated_tokens: number;
  /** When the call first asked (its place in the line survives asking again after a hold). */
  since?: number;
  /** Slots wanted (a consumer's calls waiting together, src/limiter/lease-pool.ts); default 1. */
  count?: number;
  /** Calls to pay for in advance per lease, for a holder that hands leases on (default 0). */
  prepay?: number;
  /**
   * The holder keeps the lease between requests (src/limiter/parked-lease.ts): the calls are
   * prepaid only while the key is far from its limits (`LimiterState.roomToPark`) and nobody waits
   * in line; otherwise none are, and the lease serves one call.
   */
  park?: boolean;
}

/** A grant carries every lease it gives (`lease_id` is the first) and each one's prepaid calls. */
export type AcquireResult =
  | (Extract<Acquire, { granted: true }> & { lease_ids: string[]; prepaid_calls: number[] })
  | Extract<Acquire, { granted: false }>;

export interface LimiterView {
  in_flight: number;
  allowance: LimitSettings;
}

/**
 * A caller refused only because every slot is taken waits in line here for up to this long and is
 * handed the slot of the next release, instead of polling: a thousand waiting consumers polling
 * every 50 ms would be 20,000 requests a second on one object.
 */
const HOLD_MS = 2_000;

interface Waiter {
  tokens: number;
  since: number;
  count: number;
  prepay: number;
  grant: (r: AcquireResult) => void;
}

export class ProviderLimiter extends DurableObject<Env> {
  private state: LimiterState | null = null;
  /** Ordered by when each call first asked: a freed slot goes to the longest waiter, never to a newcomer. */
  private line: Waiter[] = [];
  /** The request window's writes, each key written once at the end of each call (window-store.ts). */
  private readonly window = coalescedWindowStore(this.ctx.storage.kv);

  async acquire(req: AcquireRequest): Promise<AcquireResult> {
    try {
      return this.acquireNow(req);
    } finally {
      this.window.flush();
    }
  }

  private acquireNow(req: AcquireRequest): AcquireResult | Promise<AcquireResult> {
    const limits = { ...(PROVIDER_DEFAULTS[req.provider] ?? PROVIDER_DEFAULTS.openai_compatible!), ...req.limits };
    if (!this.state) this.state = new LimiterState(limits, Date.now(), DEFAULT_TUNING, this.requestWindow());
    else if (req.limits) this.state.setLimits(limits);
    const count = Math.max(1, Math.floor(req.count ?? 1));
    const prepay = Math.max(0, Math.floor(req.prepay ?? 0));
    // Slots freed without a release (expired leases, raised limits) go to the line first.
    this.serveLine();
    if (this.line.length === 0) {
      const r = this.take(req.estimated_tokens, count, prepay, req.park === true);
      if (r.granted || r.reason !== "concurrency") return r;
    }
    // A caller that has to wait finds the key busy: a lease to park gets no prepaid calls then.
    return this.waitInLine(req.estimated_tokens, req.since ?? Date.now(), count, req.park ? 0 : prepay);
  }

  /**
   * Up to `count` leases now, then up to `prepay` calls each to hand on, one round at a time: a
   * bucket too low for all of that grants more leases side by side and spreads the rest, rather
   * than letting the first lease's prepaid calls take the requests the next leases needed.
   * A refusal only if not even one lease is free.
   */
  private take(tokens: number, count: number, prepay: number, park = false): AcquireResult {
    const state = this.state!;
    const first = state.acquire(Date.now(), tokens);
    if (!first.granted) return first;
    // A lease to park: prepaid only if the key stays far from its limits with all of it paid.
    if (park && !state.roomToPark(Date.now(), count * (1 + prepay))) prepay = 0;
    const lease_ids = [first.lease_id];
    while (lease_ids.length < count) {
      const more = state.acquire(Date.now(), tokens);
      if (!more.granted) break;
      lease_ids.push(more.lease_id);
    }
    const prepaid_calls = lease_ids.map(() => 0);
    for (let round = 0, paid = true; round < prepay && paid; round++) {
      paid = false;
      lease_ids.forEach((id, i) => {
        if (!state.prepayOne(id)) return;
        prepaid_calls[i]! += 1;
        paid = true;
      });
    }
    return { ...first, lease_ids, prepaid_calls };
  }

  /** The requests of the last minute, as this object's storage kept them (an eviction or reset must not empty them). */
  private requestWindow(): RequestWindow {
    return RequestWindow.restore(this.ctx.storage.kv.list<[number, number]>(), this.window.store);
  }

  async release(report: ReleaseReport): Promise<void> {
    return this.releaseAll([report]);
  }

  /** Several leases back at once (one invocation's calls answered together, limiter-client.ts), in order. */
  async releaseAll(reports: ReleaseReport[]): Promise<void> {
    try {
      const now = Date.now();
      for (const report of reports) this.state?.release(now, report);
      this.serveLine();
    } finally {
      this.window.flush();
    }
  }

  /** Hands free slots to the line in order; a refusal for another reason (blocked key, empty
   * rate bucket) goes to everyone waiting, who then wait as it says. */
  private serveLine(): void {
    while (this.state && this.line.length > 0) {
      const head = this.line[0]!;
      const r = this.take(head.tokens, head.count, head.prepay);
      if (!r.granted && r.reason === "concurrency") return;
      if (r.granted) this.line.shift()!.grant(r);
      else for (const w of this.line.splice(0)) w.grant(r);
    }
  }

  /** Resolves with a lease when one is handed over, or with a short wait after HOLD_MS (a lease
   * may expire without a release; the caller asks again). */
  private waitInLine(tokens: number, since: number, count: number, prepay: number): Promise<AcquireResult> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        tokens,
        since,
        count,
        prepay,
        grant: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
      };
      const timer = setTimeout(() => {
        this.line = this.line.filter((w) => w !== waiter);
        resolve({ granted: false, wait_ms: 1, reason: "concurrency" });
      }, HOLD_MS);
      // After the last waiter that asked no later (a caller back from a hold keeps its place).
      let at = this.line.length;
      while (at > 0 && this.line[at - 1]!.since > since) at -= 1;
      this.line.splice(at, 0, waiter);
    });
  }

  async view(): Promise<LimiterView | null> {
    return this.state ? { in_flight: this.state.inFlight(), allowance: this.state.allowance() } : null;
  }
}
