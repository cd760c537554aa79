/**
 * The calls of one consumer invocation to one provider key share their limiter leases: a call that
 * finishes hands its slot straight to the next call waiting in the same invocation, and only the
 * first waiter in line asks the shared limiter (for as many slots as there are waiters). Without
 * it every call made two round trips to the key's one Durable Object, and a released slot reached
 * the next caller through that object; with it, a busy invocation talks to the object about once
 * per slot it takes or gives back (bench/throughput).
 *
 * What keeps the shared budget honest:
 * - A lease is handed on only as many times as the limiter let it prepay from its request and
 *   token buckets when granting it (`prepay`, as far as the buckets held); with the buckets low
 *   there is nothing prepaid, and every call asks the limiter. The release that returns a lease
 *   reports its calls and tokens: unused prepaid calls are refunded, tokens corrected to use.
 * - A 429 is never handed on: its release goes to the limiter at once (the allowance shrinks, a
 *   retry-after blocks the key), and no lease granted before it is handed on any more — the slots
 *   held drain back to the limiter, which decides how many may run; leases it grants afterwards
 *   are handed on again. The other pools of the isolate on the same key count the 429 too
 *   (`rateLimits`), so their calls stop without waiting for their next word with the limiter
 *   (reliability scenario 5: calls inside a retry-after window).
 * - Until the limiter has heard of every 429 the isolate's calls to the key got, what it grants
 *   may have been decided without it: the pools do not ask it meanwhile (each waiting call hears a
 *   short refusal and asks again), and a grant to an ask made before the latest 429 goes back
 *   unused. A lease granted before a 429 is not used for a call that has yet to start (`usable`,
 *   which limited.ts asks before each call). Under load the turns between a grant and the request
 *   it lets out stretch, and such calls reached the provider inside its retry-after window (scenario
 *   5, 1–2 of 62 calls in about one full reliability run in three).
 * - A lease is handed on only to a call that asked before the limiter granted the lease, so the
 *   calls of other consumers that have waited longer in the limiter's line are not passed over.
 *   "Asked" is the call's place in line: a queue job's calls all ask from the job's start
 *   (limited.ts `inLineFrom`), so a job's judge call after its answer queues behind the calls of
 *   jobs begun before it, not behind every call asked since.
 * - A lease is handed on only while younger than `maxChainMs` (the limiter's 150 s lease expiry
 *   minus the longest call), so the limiter never reclaims a slot that is still in use.
 * - Slots the limiter grants when no call waits any more (the waiters got handed-on slots) are
 *   given straight back.
 */
import type { LimiterClient, LimiterGrant } from "./limited";

export type LimiterRefusal = Extract<LimiterGrant, { granted: false }>;

/** The shared limiter as the pool sees it: slots in batches, released with what they were used for. */
export interface SlotSource {
  /** `prepay`: calls per lease to pay for now, so the lease can be handed on that many times. */
  acquire(req: {
    count: number;
    estimatedTokens: number;
    since: number;
    prepay: number;
    /** The holder parks the lease between requests (parked-lease.ts): prepay only while the key is far from its limits. */
    park?: boolean;
  }): Promise<{ granted: true; lease_ids: string[]; prepaid_calls: number[] } | LimiterRefusal>;
  release(report: PooledRelease): Promise<void>;
}

export interface PooledRelease {
  lease_id: string;
  rate_limited?: boolean;
  retry_after_ms?: number;
  /** Tokens used by every call made under the lease. */
  tokens_used?: number;
  /** Calls made under the lease (1 unless it was handed on). */
  calls?: number;
}

export interface LeasePoolOptions {
  now: () => number;
  /** Calls per lease to prepay, i.e. how many times a lease may be handed on. */
  prepay: number;
  /** Hand a lease on only while it is younger than this (the limiter's lease expiry minus the longest call). */
  maxChainMs: number;
  /**
   * The 429s the key's calls got, counted across the pools of one isolate on the key (default:
   * this pool's own count). A plain number, never a promise: workerd settles a promise only in
   * the request that made it.
   */
  rateLimits?: RateLimitCount;
}

/** How many 429s the calls of this isolate to one key have got, and how many of them the limiter has heard of. */
export interface RateLimitCount {
  seen: number;
  /** 429 releases the limiter has answered (or that failed to reach it: waiting for those would wait forever). */
  told: number;
  /** When the latest was seen (`now()`). */
  seenAt?: number;
}

/** A waiting call's pause while the limiter has yet to hear of a 429 (about one round trip to it). */
export const UNTOLD_429_WAIT_MS = 25;
/**
 * The longest the pools wait for the limiter to hear of a 429: a release whose invocation was cut
 * off never settles, and the key's calls in this isolate must not wait for it for ever.
 */
export const UNTOLD_429_MAX_MS = 2_000;

interface Waiter {
  estimatedTokens: number;
  since: number;
  resolve: (g: LimiterGrant) => void;
}

interface Held {
  grantedAt: number;
  calls: number;
  tokens: number;
  /** Prepaid calls left: how many more times the lease may be handed on. */
  handOns: number;
  /** The key's 429 count when the lease was granted: a 429 since, and it is no longer handed on. */
  rateLimitsSeen: number;
}

export function leasePool(source: SlotSource, opts: LeasePoolOptions): LimiterClient {
  const waiters: Waiter[] = [];
  const held = new Map<string, Held>();
  let asking = false;
  const rateLimits = opts.rateLimits ?? { seen: 0, told: 0 };
  const refuseWaiters = (r: LimiterRefusal) => {
    for (const w of waiters.splice(0)) w.resolve(r);
  };

  const giveBack = (lease_id: string, h: Held | undefined, extra: Omit<PooledRelease, "lease_id" | "calls" | "tokens_used"> = {}) => {
    held.delete(lease_id);
    const report: PooledRelease = { lease_id, ...extra };
    if (h && h.calls > 0) {
      report.calls = h.calls;
      if (h.tokens > 0) report.tokens_used = h.tokens;
    }
    // A limiter that cannot be told is not a reason to fail a call; its lease expires.
    return source.release(report).catch(() => undefined);
  };

  const ask = () => {
    if (asking || waiters.length === 0) return;
    if (rateLimits.told < rateLimits.seen && opts.now() - (rateLimits.seenAt ?? 0) < UNTOLD_429_MAX_MS) {
      refuseWaiters({ granted: false, wait_ms: UNTOLD_429_WAIT_MS, reason: "blocked" });
      return;
    }
    asking = true;
    const head = waiters[0]!;
    const seenAtAsk = rateLimits.seen;
    source.acquire({ count: waiters.length, estimatedTokens: head.estimatedTokens, since: head.since, prepay: opts.prepay }).then(
      (r) => {
        asking = false;
        if (r.granted && rateLimits.seen !== seenAtAsk) {
          // Decided, maybe, before the limiter heard of the 429: unused, back (its prepaid calls refunded).
          for (const lease_id of r.lease_ids) void giveBack(lease_id, undefined);
          refuseWaiters({ granted: false, wait_ms: UNTOLD_429_WAIT_MS, reason: "blocked" });
        } else if (r.granted) {
          for (const [i, lease_id] of r.lease_ids.entries()) {
            const w = waiters.shift();
            if (!w) {
              void giveBack(lease_id, undefined);
              continue;
            }
            held.set(lease_id, {
              grantedAt: opts.now(),
              calls: 0,
              tokens: 0,
              handOns: r.prepaid_calls[i] ?? 0,
              rateLimitsSeen: rateLimits.seen,
            });
            w.resolve({ granted: true, lease_id });
          }
        } else {
          // Every waiter hears the refusal and decides for itself (wait in place or hand the job back).
          refuseWaiters(r);
        }
        ask();
      },
      () => {
        asking = false;
        // An unreachable limiter: each caller waits a moment and asks again, as after a full line.
        refuseWaiters({ granted: false, wait_ms: 50, reason: "concurrency" });
      },
    );
  };

  return {
    acquire(estimatedTokens, since) {
      return new Promise<LimiterGrant>((resolve) => {
        const w: Waiter = { estimatedTokens, since: since ?? opts.now(), resolve };
        // Ordered by when each call first asked, as the limiter orders its own line.
        let at = waiters.length;
        while (at > 0 && waiters[at - 1]!.since > w.since) at -= 1;
        waiters.splice(at, 0, w);
        ask();
      });
    },

    usable(lease_id) {
      const h = held.get(lease_id);
      return !h || h.rateLimitsSeen === rateLimits.seen;
    },

    async release(report) {
      const h = held.get(report.lease_id);
      if (h && !report.unused) {
        h.calls += 1;
        h.tokens += report.tokens_used ?? 0;
      }
      if (report.rate_limited) {
        rateLimits.seen += 1;
        rateLimits.seenAt = opts.now();
        const extra: Omit<PooledRelease, "lease_id"> = { rate_limited: true };
        if (report.retry_after_ms !== undefined) extra.retry_after_ms = report.retry_after_ms;
        return giveBack(report.lease_id, h, extra).then(() => void (rateLimits.told += 1));
      }
      // Handed on only to a call that asked before the limiter granted this lease: a call that
      // asked later may have been overtaken by older calls of other consumers waiting in the
      // limiter's line, which gets the slot instead (first asked, first served across the key).
      const head = waiters[0];
      if (
        h &&
        head &&
        h.handOns > 0 &&
        h.rateLimitsSeen === rateLimits.seen &&
        head.since <= h.grantedAt &&
        opts.now() - h.grantedAt < opts.maxChainMs
      ) {
        h.handOns -= 1;
        waiters.shift();
        head.resolve({ granted: true, lease_id: report.lease_id });
        return "handed_on";
      }
      return giveBack(report.lease_id, h);
    },
  };
}
