/**
 * Whether a run was cancelled, as this isolate last heard it, and the gate every model call of a
 * job passes twice: before it asks the limiter for a lease, and once granted, just before it
 * starts (so a call that waited for a lease is checked after the wait). The first pass refreshes a
 * stale flag, so the second rarely has to wait on the coordinator while holding a lease.
 *
 * No round trip per model call: the coordinator's answers to the calls a job already makes (its
 * claim, checkpoints and results, batched per invocation) carry the run's flag, and only when the
 * flag this isolate holds is older than `MAX_AGE_MS` does the gate ask the coordinator, once for
 * every call waiting on the same run. A cancel is therefore seen within MAX_AGE_MS plus one
 * round trip; a cancelled run stays cancelled, so that answer is never asked again.
 *
 * The flags are plain values shared by the isolate's invocations; a refresh in flight is a
 * promise, and workerd settles a promise only in the request that made it, so those are kept
 * per invocation (`cancelGate`).
 */
import { fail, type LlmResult, type ModelPort, wrapEveryCall } from "../llm/port";

/** How stale the isolate's flag may be when a model call starts. */
export const MAX_AGE_MS = 250;

interface Seen {
  cancelled: boolean;
  at: number;
}

/** By coordinator name. Bounded: an isolate meets few runs, but a long-lived one must not grow forever. */
const seen = new Map<string, Seen>();
const MAX_RUNS = 1_000;

/** What a coordinator just said about its run (any answer of it, at `now`). */
export function noteRunState(coordinator: string, cancelled: boolean, now: number): void {
  if (seen.get(coordinator)?.cancelled) return;
  if (seen.size >= MAX_RUNS && !seen.has(coordinator)) seen.delete(seen.keys().next().value!);
  seen.set(coordinator, { cancelled, at: now });
}

/** The last word this isolate has that the run is cancelled (no round trip). */
export const knownCancelled = (coordinator: string): boolean => seen.get(coordinator)?.cancelled === true;

export interface CancelGate {
  /** True when a model call of this run may start now. */
  mayCall(coordinator: string): Promise<boolean>;
}

/** One invocation's gate: `ask` reads the run's flag from its coordinator when the isolate's is stale. */
export function cancelGate(ask: (coordinator: string) => Promise<boolean>, now: () => number): CancelGate {
  const refreshing = new Map<string, Promise<boolean>>();
  return {
    async mayCall(coordinator) {
      const s = seen.get(coordinator);
      if (s?.cancelled) return false;
      if (s && now() - s.at <= MAX_AGE_MS) return true;
      let pending = refreshing.get(coordinator);
      if (!pending) {
        const asked = now();
        pending = ask(coordinator).then(
          (cancelled) => {
            noteRunState(coordinator, cancelled, asked);
            return !cancelled;
          },
          // The coordinator could not be asked: the call goes ahead (a lost cancel costs calls;
          // a lost run costs its results), and the next call asks again.
          () => true,
        );
        pending.finally(() => refreshing.delete(coordinator));
        refreshing.set(coordinator, pending);
      }
      return pending;
    },
  };
}

/**
 * The refusal of a call the gate stopped: no provider was asked (`deferred`, so the retry
 * decorator hands it back at once instead of retrying), and `cancelled` tells the job runner why.
 */
export const cancelledCall = <T>(): LlmResult<T> =>
  fail({ kind: "timeout", message: "the run was cancelled: this model call was not made", deferred: true, cancelled: true });

/** The port whose every call first passes the run's gate (refreshing a flag older than MAX_AGE_MS). */
export function gatedPort(inner: ModelPort, gate: CancelGate, coordinator: string): ModelPort {
  const run = async <T>(call: () => Promise<LlmResult<T>>): Promise<LlmResult<T>> =>
    (await gate.mayCall(coordinator)) ? call() : cancelledCall<T>();
  return wrapEveryCall(inner, run);
}
