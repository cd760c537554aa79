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
 *   of the request that parked it: an idle isolate holds a slot for at most that long. One that
 *   went back having served a single call makes the isolate ask for plain leases to that key for
 *   PAUSE_AFTER_WASTE_MS (requests further apart than idleMs only paid for calls never made).
 * - Only one lease per key is asked prepaid at a time: calls running beside it ask plain leases.
 * - A lease is taken only while younger than `maxChainMs` (the lease expiry minus the call's
 *   timeout and a margin), so the limiter never reclaims a slot still in use.
 * - A 429 is never parked: its release goes to the limiter at once (AIMD, retry-after). It also
 *   sends the isolate's parked lease of the key back, and a lease granted before it (in use at the
 *   429) is not parked again: a parked lease does not ask the limiter, so without this the isolate's
 *   next requests would call the provider inside its retry-after window, up to the lease's prepaid
 *   calls (the lease pool's rule for the same case: lease-pool.ts).
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

/** The one lease per name an isolate asks prepaid for parking, from the asking on (`at`). */
interface Chain {
  at: number;
}

interface Parked {
  lease_id: string;
  /** The limiter object's name. */
  name: string;
  /** Set on the isolate's lease to park (the others serve one call and go back). */
  chain?: Chain;
  grantedAt: number;
  /** Prepaid calls left. */
  handOns: number;
  calls: number;
  tokens: number;
  /** Bumped on every park: a timer of an earlier park finds it changed and does nothing. */
  parks: number;
}

/** After a lease to park served one call only, the isolate's requests to that key ask for plain leases this long. */
export const PAUSE_AFTER_WASTE_MS = 2_000;

/** One isolate's parked leases, by limiter object name (at most one a name). */
export class ParkedLeases {
  private byName = new Map<string, Parked>();
  /**
   * Per name, the lease this isolate asked prepaid for parking, parked or in use: while it lives,
   * other calls of the isolate (running beside it) ask without prepay, so the limiter does not pay
   * calls for leases that would find a lease parked already and go back refunded.
   */
  private chains = new Map<string, Chain>();
  /**
   * When a lease to park last went back unused (idle after its first call): requests that come
   * further apart than idleMs pay for prepaid calls they never make, so for a while the next ones
   * ask for plain leases.
   */
  private wasted = new Map<string, number>();
  /** Per name, when a call last got a 429: no lease granted before it is parked again. */
  private limitedAt = new Map<string, number>();
  /** Names kept at most (the oldest parked go back first). */
  constructor(private readonly maxNames = 256) {}

  /** A mark to ask for a lease to park with, unless one of `name` lives (younger than maxChainMs). */
  startChain(name: string, now: number, maxChainMs: number): Chain | undefined {
    const c = this.chains.get(name);
    if (c && now - c.at < maxChainMs) return undefined;
    const wasted = this.wasted.get(name);
    if (wasted !== undefined && now >= wasted && now - wasted < PAUSE_AFTER_WASTE_MS) return undefined;
    this.wasted.delete(name);
    const mark = { at: now };
    this.chains.set(name, mark);
    if (this.chains.size > this.maxNames) this.chains.delete(this.chains.keys().next().value!);
    return mark;
  }

  endChain(name: string, mark: Chain | undefined): void {
    if (mark && this.chains.get(name) === mark) this.chains.delete(name);
  }

  /** A call to `name` got a 429 at `now`: the lease parked for it, if any, to give back. */
  rateLimited(name: string, now: number): Parked | undefined {
    this.limitedAt.delete(name);
    this.limitedAt.set(name, now);
    if (this.limitedAt.size > this.maxNames) this.limitedAt.delete(this.limitedAt.keys().next().value!);
    const p = this.byName.get(name);
    if (p) this.byName.delete(name);
    return p;
  }

  /** Granted before the key's latest 429 (at the same instant counts as before). */
  private grantedBeforeRateLimit(name: string, p: Parked): boolean {
    const at = this.limitedAt.get(name);
    return at !== undefined && p.grantedAt <= at;
  }

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
    if (this.byName.has(name) || this.grantedBeforeRateLimit(name, p)) return { parked: false };
    p.parks += 1;
    this.byName.set(name, p);
    if (this.byName.size <= this.maxNames) return { parked: true };
    const [oldest, lease] = this.byName.entries().next().value!;
    this.byName.delete(oldest);
    return { parked: true, evicted: lease };
  }

  /** Unparks `p` if it is still parked as of park number `parks`, for its release (noting at `now` a lease that served one call only). */
  reclaim(name: string, p: Parked, parks: number, now: number): boolean {
    if (this.byName.get(name) !== p || p.parks !== parks) return false;
    this.byName.delete(name);
    if (p.calls <= 1) {
      this.wasted.set(name, now);
      if (this.wasted.size > this.maxNames) this.wasted.delete(this.wasted.keys().next().value!);
    }
    return true;
  }
}

/** The limiter client of one request: takes the isolate's parked lease of `name` when it can, else asks `source`. */
export function parkingClient(source: SlotSource, name: Promise<string>, leases: ParkedLeases, opts: ParkOptions): LimiterClient {
  const inUse = new Map<string, Parked>();

  const giveBack = (p: Parked, extra: Omit<PooledRelease, "lease_id" | "calls" | "tokens_used"> = {}) => {
    leases.endChain(p.name, p.chain);
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
      const chain = leases.startChain(key, askedAt, opts.maxChainMs);
      const ask = { count: 1, estimatedTokens, since: since ?? askedAt, prepay: chain ? opts.prepay : 0, ...(chain ? { park: true } : {}) };
      const r = await source.acquire(ask).catch((e: unknown) => {
        leases.endChain(key, chain);
        throw e;
      });
      const handOns = r.granted ? (r.prepaid_calls[0] ?? 0) : 0;
      if (handOns === 0) leases.endChain(key, chain);
      if (!r.granted) return r;
      const lease_id = r.lease_ids[0]!;
      inUse.set(lease_id, {
        lease_id,
        name: key,
        ...(handOns > 0 ? { chain } : {}),
        grantedAt: askedAt,
        handOns,
        calls: 0,
        tokens: 0,
        parks: 0,
      });
      return { granted: true, lease_id };
    },

    async release(report) {
      const p = inUse.get(report.lease_id);
      if (!p) return void (await source.release(report).catch(() => undefined));
      inUse.delete(report.lease_id);
      p.calls += 1;
      p.tokens += report.tokens_used ?? 0;
      const key = await name;
      if (report.rate_limited) {
        const extra: Omit<PooledRelease, "lease_id"> = { rate_limited: true };
        if (report.retry_after_ms !== undefined) extra.retry_after_ms = report.retry_after_ms;
        const parkedBefore = leases.rateLimited(key, opts.now());
        if (parkedBefore) opts.settleLater(giveBack(parkedBefore));
        return void (await giveBack(p, extra));
      }
      if (p.handOns <= 0 || opts.now() - p.grantedAt >= opts.maxChainMs) return void (await giveBack(p));
      const { parked, evicted } = leases.park(key, p);
      if (evicted) opts.settleLater(giveBack(evicted));
      if (!parked) return void (await giveBack(p));
      const parks = p.parks;
      opts.settleLater(opts.sleep(opts.idleMs).then(() => (leases.reclaim(key, p, parks, opts.now()) ? giveBack(p) : undefined)));
    },
  };
}
