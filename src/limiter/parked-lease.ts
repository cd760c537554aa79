/**
 * A lease an isolate keeps between requests: /v1/judge makes one model call a request, so the
 * lease pool (one invocation's calls share leases, lease-pool.ts) never has a second call to hand
 * a lease to, and every request made two round trips to the key's ProviderLimiter (acquire, then
 * release) — most of what the limiter cost the endpoint (bench/judge). Here a request that finishes
 * its call parks the lease in its isolate; the isolate's next request for the same key takes it
 * without asking the object, as long as the limiter prepaid a call for it.
 *
 * What keeps the shared limits honest, as the lease pool's hand-ons do:
 * - A parked lease is one slot: it is used by one call at a time (taken out of the isolate's map
 *   while in use), so the key's concurrency cap holds.
 * - It is handed on only as many times as the limiter prepaid when granting it (`prepay`): every
 *   call made under it was paid for in the key's request window and token bucket at the grant,
 *   and each call happens between the grant and the release, which reports the calls made
 *   (unused prepaid ones refunded, tokens corrected): request-window.ts's proof holds unchanged.
 * - The limiter prepays for parking only while the key is far from its limits (`park`: under half
 *   its concurrency and half its requests per minute, nobody waiting in its line;
 *   LimiterState.roomToPark), so a parked slot never stands in another caller's way; near the
 *   limits every call asks the object as before.
 * - A lease parked and not taken again within `idleMs` goes back to the limiter, from the waitUntil
 *   of the request that parked it: an idle isolate holds a slot for at most that long.
 * - A lease is taken only while younger than `maxChainMs` (the lease expiry minus the call's
 *   timeout and a margin), so the limiter never reclaims a slot still in use.
 * - A 429 is never parked: its release goes to the limiter at once (AIMD, retry-after).
 *
 * What it gives up: the lease pool hands a lease on only to a call that asked before the grant
 * (first asked, first served across the key); a parked lease goes to the isolate's next request,
 * which asked later. The key had free slots and an empty line at the grant, so a caller can be
 * passed over only if the key filled up meanwhile, and by at most the lease's prepaid calls. An
 * isolate that goes away with a lease parked leaves it to expire (leaseMs) as a crashed consumer
 * does, its prepaid calls counted as made.
 *
 * The parked leases are plain data (workerd settles a promise only in the request that made it):
 * two requests that find no parked lease each ask the object.
 */
import type { LimiterClient } from "./limited";
import type { PooledRelease, SlotSource } from "./lease-pool";

export interface ParkOptions {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** The request's waitUntil: the release of a lease nobody took, and every release, run after the answer. */
  settleLater: (work: Promise<unknown>) => void;
  /** Calls per lease to prepay (how many times a lease may be taken again). */
  prepay: number;
  maxChainMs: number;
  idleMs: number;
}

interface Parked {
  lease_id: string;
  grantedAt: number;
  /** Prepaid calls left. */
  handOns: number;
  calls: number;
  tokens: number;
  /** Bumped on every park: a timer of an earlier park finds it changed and does nothing. */
  parks: number;
}

/** One isolate's parked leases, by limiter object name (at most one a name). */
export class ParkedLeases {
  private byName = new Map<string, Parked>();
  /** Names kept at most (the oldest parked go back first). */
  constructor(private readonly maxNames = 256) {}

  /** The parked lease of `name`, taken out for one call, if it may still be used. */
  take(name: string, now: number, maxChainMs: number): Parked | undefined {
    const p = this.byName.get(name);
    if (!p || p.handOns <= 0 || now - p.grantedAt >= maxChainMs) return undefined;
    this.byName.delete(name);
    p.handOns -= 1;
    return p;
  }

  /** Parks `p` unless `name` has one parked already; false when it was not parked. Returns the lease pushed out to stay within maxNames, if any. */
  park(name: string, p: Parked): { parked: boolean; evicted?: Parked } {
    if (this.byName.has(name)) return { parked: false };
    p.parks += 1;
    this.byName.set(name, p);
    if (this.byName.size <= this.maxNames) return { parked: true };
    const [oldest, lease] = this.byName.entries().next().value!;
    this.byName.delete(oldest);
    return { parked: true, evicted: lease };
  }

  /** Unparks `p` if it is still parked as of park number `parks`, for its release. */
  reclaim(name: string, p: Parked, parks: number): boolean {
    if (this.byName.get(name) !== p || p.parks !== parks) return false;
    this.byName.delete(name);
    return true;
  }
}

/** The limiter client of one request: takes the isolate's parked lease of `name` when it can, else asks `source`. */
export function parkingClient(source: SlotSource, name: Promise<string>, leases: ParkedLeases, opts: ParkOptions): LimiterClient {
  const inUse = new Map<string, Parked>();

  const giveBack = (p: Parked, extra: Omit<PooledRelease, "lease_id" | "calls" | "tokens_used"> = {}) => {
    const report: PooledRelease = { lease_id: p.lease_id, ...extra };
    if (p.calls > 0) {
      report.calls = p.calls;
      if (p.tokens > 0) report.tokens_used = p.tokens;
    }
    // A limiter that cannot be told is not a reason to fail a call; its lease expires.
    return source.release(report).catch(() => undefined);
  };

  return {
    async acquire(estimatedTokens, since) {
      const key = await name;
      const parked = leases.take(key, opts.now(), opts.maxChainMs);
      if (parked) {
        inUse.set(parked.lease_id, parked);
        return { granted: true, lease_id: parked.lease_id };
      }
      // Counted from before asking: the chain ends no later than the limiter's own clock says.
      const askedAt = opts.now();
      const r = await source.acquire({ count: 1, estimatedTokens, since: since ?? askedAt, prepay: opts.prepay, park: true });
      if (!r.granted) return r;
      const lease_id = r.lease_ids[0]!;
      inUse.set(lease_id, { lease_id, grantedAt: askedAt, handOns: r.prepaid_calls[0] ?? 0, calls: 0, tokens: 0, parks: 0 });
      return { granted: true, lease_id };
    },

    async release(report) {
      const p = inUse.get(report.lease_id);
      if (!p) return void (await source.release(report).catch(() => undefined));
      inUse.delete(report.lease_id);
      p.calls += 1;
      p.tokens += report.tokens_used ?? 0;
      if (report.rate_limited) {
        const extra: Omit<PooledRelease, "lease_id"> = { rate_limited: true };
        if (report.retry_after_ms !== undefined) extra.retry_after_ms = report.retry_after_ms;
        return void (await giveBack(p, extra));
      }
      const key = await name;
      if (p.handOns <= 0 || opts.now() - p.grantedAt >= opts.maxChainMs) return void (await giveBack(p));
      const { parked, evicted } = leases.park(key, p);
      if (evicted) opts.settleLater(giveBack(evicted));
      if (!parked) return void (await giveBack(p));
      const parks = p.parks;
      opts.settleLater(opts.sleep(opts.idleMs).then(() => (leases.reclaim(key, p, parks) ? giveBack(p) : undefined)));
    },
  };
}
