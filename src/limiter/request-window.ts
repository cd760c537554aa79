/**
 * Requests per minute as a provider counts them: at most `limit` requests reach it in any 60 s
 * (issue 26, scenario 6). A token bucket that starts full and refills continuously cannot promise
 * that: it grants the full bucket at once and then one request per 60/rpm s, so the minute after a
 * burst holds up to 2 × rpm − 1 requests (the fake saw 62 against 60).
 *
 * The limiter does not see when a request reaches the provider, only that it happens between the
 * grant and the release of its lease (a handed-on call later than the grant, src/limiter/lease-pool.ts).
 * So a paid call counts from its grant until 60 s after its lease's release (its expiry, if never
 * released). Proof that no 60 s window at the provider holds more than `limit` requests: take the
 * requests that arrive within one window [T, T + 60 s), and of them the one granted last, at g.
 * g is at most its own arrival, so g < T + 60 s; every other one arrived at or after T and was
 * released at or after its arrival, so it ended after g − 60 s and still counted at g. The grant at
 * g needed fewer than `limit` counted, so the window holds at most `limit`.
 * The price: a call is counted for its duration + 60 s, not 60 s (for 10 s calls, 86 % of the rate).
 *
 * The window outlives its object: a Durable Object that is evicted or reset (local workerd evicts
 * one idle for ~10 s, e.g. while every job waits out a minute) would otherwise start empty and let
 * another `limit` through within the minute. Every change is written to a `WindowStore` (the
 * object's synchronous storage), one key per entry, and `RequestWindow.restore` reads it back; a
 * lease held when the object went away counts as ended at its expiry (its calls may still come).
 */
export const WINDOW_MS = 60_000;

/** Where the window is kept across restarts: `[at, calls]` per key (`e:` ended, `h:` held lease). */
export interface WindowStore {
  put(key: string, value: [number, number]): void;
  delete(key: string): void;
}

interface Ended {
  key: string;
  at: number;
  calls: number;
}

const memory: WindowStore = { put: () => undefined, delete: () => undefined };

export class RequestWindow {
  /** Leases ended within the last WINDOW_MS (ascending `at`), from `head` on. */
  private ended: Ended[] = [];
  private head = 0;
  private endedCalls = 0;
  /** Calls paid for under each lease still held (any may reach the provider until the release), and its expiry. */
  private held = new Map<string, { calls: number; expires_at: number }>();
  private heldCalls = 0;
  private seq = 0;

  constructor(private store: WindowStore = memory) {}

  /**
   * The window a store kept: ended entries as they were, held leases as ended at their expiry
   * (the object that granted them is gone; their releases will not find them).
   */
  static restore(entries: Iterable<[string, [number, number]]>, store: WindowStore): RequestWindow {
    const w = new RequestWindow(store);
    const all = [...entries];
    for (const [key, [at, calls]] of all) {
      const n = Number(key.slice(2));
      if (key.startsWith("e:") && Number.isFinite(n)) {
        w.seq = Math.max(w.seq, n);
        w.insert({ key, at, calls });
      }
    }
    for (const [key, [at, calls]] of all) {
      if (!key.startsWith("h:")) continue;
      store.delete(key);
      w.add(at, calls);
    }
    return w;
  }

  /** Calls that count now (held + ended within the last WINDOW_MS). */
  count(now: number): number {
    this.drop(now);
    return this.heldCalls + this.endedCalls;
  }

  /** Counted calls, without dropping old ones first (an upper bound of `count`). */
  size(): number {
    return this.heldCalls + this.endedCalls;
  }

  /** One more call paid for under the held lease `lease` (which expires at `expiresAt`). */
  hold(lease: string, expiresAt: number): void {
    const h = this.held.get(lease) ?? { calls: 0, expires_at: expiresAt };
    h.calls += 1;
    this.held.set(lease, h);
    this.heldCalls += 1;
    this.store.put(`h:${lease}`, [h.expires_at, h.calls]);
  }

  /**
   * The lease ended at `at` having made `made` calls (its unused prepaid calls refunded, calls
   * beyond them charged): they count until `at` + WINDOW_MS.
   */
  finish(lease: string, at: number, made: number): void {
    const h = this.held.get(lease);
    if (h) {
      this.held.delete(lease);
      this.heldCalls -= h.calls;
      this.store.delete(`h:${lease}`);
    }
    this.add(at, made);
  }

  /**
   * How long until fewer than `limit` calls count, so one more may be granted: until enough ended
   * calls are a minute old; if the held ones are needed too, at least a minute (a held call counts
   * until a minute after its release, which is now at the earliest).
   */
  waitMs(now: number, limit: number): number {
    let excess = this.count(now) - (limit - 1);
    if (excess <= 0) return 0;
    for (let i = this.head; i < this.ended.length; i++) {
      excess -= this.ended[i]!.calls;
      if (excess <= 0) return Math.max(1, Math.ceil(this.ended[i]!.at + WINDOW_MS - now));
    }
    return WINDOW_MS;
  }

  private add(at: number, calls: number): void {
    if (calls <= 0) return;
    const key = `e:${++this.seq}`;
    this.insert({ key, at, calls });
    this.store.put(key, [at, calls]);
  }

  private insert(e: Ended): void {
    this.endedCalls += e.calls;
    let i = this.ended.length;
    // Usually the newest; an expiry found late (or a clock stepping back) goes in its place.
    while (i > this.head && this.ended[i - 1]!.at > e.at) i -= 1;
    this.ended.splice(i, 0, e);
  }

  private drop(now: number): void {
    while (this.head < this.ended.length && this.ended[this.head]!.at <= now - WINDOW_MS) {
      const gone = this.ended[this.head]!;
      this.endedCalls -= gone.calls;
      this.store.delete(gone.key);
      this.head += 1;
    }
    // Compact once the dropped part dominates: O(1) per entry over time.
    if (this.head > 64 && this.head * 2 > this.ended.length) {
      this.ended = this.ended.slice(this.head);
      this.head = 0;
    }
  }
}
