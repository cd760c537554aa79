/**
 * The client's one retry policy, for every wait that outlives a single request: the event
 * stream's reconnects (events.ts), the status GETs of a run watched by polling, the final GET of
 * `runs.wait`, the polls of an export being built and its file's GET, and the submit of a run
 * (below). A CI job should outlast a blip of the server or of a gateway in front of it, and
 * still fail at once on what will not change.
 *
 * Transient (retried): a request that got no answer (connection refused or reset, a request's own
 * timeout: `EdgevalConnectionError`) and the statuses that change on their own: 408, 429 and every
 * 5xx (a gateway's 502/503/504, a server restarting). Anything else (400, 401, 403, 404, 409)
 * would answer the same again: it fails at once. The caller's abort (a --timeout, Ctrl-C) is
 * never retried, and it ends a wait between tries as well.
 *
 * Delay before try n + 1 after n failures in a row: the server's Retry-After when it sent one
 * (it knows best; the caller's signal and `maxDelayMs` bound the wait), else
 * base × 2^(n-1) capped at 30 s, where base is 1 s, or the event stream's `retry:` field.
 * No jitter: each client already polls on its own schedule, and tests stay exact.
 * After `maxRetries` retries in a row (default 5: about 30 s of outage) the next failure gives
 * up, saying how many tries failed and the last error. A wait longer than `maxDelayMs` (a
 * Retry-After of days) is not waited: that error is thrown as it is.
 *
 * A POST is retried only where a re-send cannot make a second one: a 429 (the server took
 * nothing, `refusedUntaken`), and with an Idempotency-Key any blip (`resendable`).
 */
import { EdgevalApiError, EdgevalConnectionError } from "./http.ts";

export const DEFAULT_MAX_RETRIES = 5;
const BASE_MS = 1_000;
const CAP_MS = 30_000;

/** A retry about to happen, for a caller that reports it (the CLI prints one line). */
export interface RetryNotice {
  error: Error;
  /** Failures in a row so far, this one included. */
  failures: number;
  delayMs: number;
}

export interface RetryOptions {
  /** Retries in a row before giving up (the next failure gives up); default 5. */
  maxRetries?: number;
  /** The caller's overall bound (a timeout, Ctrl-C): it stops a wait between tries at once. */
  signal?: AbortSignal;
  onRetry?: (notice: RetryNotice) => void;
  /**
   * A wait longer than this is not waited: the error is thrown at once (default 5 minutes). A
   * month's spent quota answers with a Retry-After of days; a caller with a deadline passes what is left of it.
   */
  maxDelayMs?: number;
  /** Which failures to try again; default isTransient. A POST narrows it (runs.create). */
  retryable?: (err: unknown) => boolean;
}

export const DEFAULT_MAX_DELAY_MS = 5 * 60_000;

/** Whether trying again later may answer differently. */
export function isTransient(err: unknown): boolean {
  if (err instanceof EdgevalConnectionError) return true;
  return err instanceof EdgevalApiError && (err.status === 408 || err.status === 429 || err.status >= 500);
}

/** A refusal that took nothing (429: a quota, the request rate): the same request may be sent again as it is. */
export function refusedUntaken(err: unknown): boolean {
  return err instanceof EdgevalApiError && err.status === 429;
}

/**
 * With an Idempotency-Key a re-sent POST returns the first one's result, so any blip may be
 * retried too, and the server's 409 idempotency_in_progress (the first is still starting).
 */
export function resendable(err: unknown): boolean {
  return isTransient(err) || (err instanceof EdgevalApiError && err.code === "idempotency_in_progress");
}

/** How long to wait after `failures` failures in a row, the last being `err` (none: a stream that just ended). */
export function retryDelayMs(err: unknown, failures: number, baseMs = BASE_MS): number {
  if (err instanceof EdgevalApiError && err.retryAfterMs !== undefined) return err.retryAfterMs;
  return Math.min(baseMs * 2 ** Math.max(0, failures - 1), CAP_MS);
}

/** The error to throw once `failures` tries in a row failed, naming the count and the last error. */
export function gaveUp(failures: number, last: unknown): Error {
  const message = last instanceof Error ? last.message : String(last);
  return new Error(`${message} (failed ${failures} times in a row; gave up)`, { cause: last });
}

/** Runs `attempt`, trying again after each transient failure as the policy above says. */
export async function withRetries<T>(attempt: () => Promise<T>, o: RetryOptions = {}): Promise<T> {
  const max = o.maxRetries ?? DEFAULT_MAX_RETRIES;
  for (let failures = 1; ; failures++) {
    try {
      return await attempt();
    } catch (err) {
      if (o.signal?.aborted) throw o.signal.reason;
      if (!(o.retryable ?? isTransient)(err)) throw err;
      if (failures > max) throw gaveUp(failures, err);
      const delayMs = retryDelayMs(err, failures);
      if (delayMs > (o.maxDelayMs ?? DEFAULT_MAX_DELAY_MS)) throw err;
      o.onRetry?.({ error: err as Error, failures, delayMs });
      await sleep(delayMs, o.signal);
    }
  }
}

/** A timer that the signal ends early, rejecting with the signal's reason. */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    // A signal that aborted during the request before this sleep fires no "abort" event any more.
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => (clearTimeout(timer), reject(signal?.reason));
    // The listener goes when the timer fires: an hour of 1 s polls would otherwise leave 3600 on the signal.
    const timer = setTimeout(() => (signal?.removeEventListener("abort", onAbort), resolve()), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
