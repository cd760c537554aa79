/**
 * A port whose calls end by a deadline: a synchronous request (POST /v1/judge `deadline_ms`) must
 * answer in time, whatever its model does. Used twice in the chain (src/http/judge.ts):
 *
 * - around the limited adapter, so that once the deadline has passed no further call is made —
 *   not a retry, not the next unit's call (the refusal is `deferred`: no provider was asked, and
 *   the retry decorator hands it back instead of trying again);
 * - around the whole chain, so that a call, a limiter wait or a retry backoff in progress at the
 *   deadline stops being waited for.
 *
 * Either way the result is a `timeout` error naming the deadline.
 */
import { fail, type LlmResult, type ModelPort, wrapEveryCall } from "./port";

export interface Deadline {
  /** When the request must have its answer (ms since the epoch). */
  at: number;
  /** The deadline as the caller gave it, for the message. */
  ms: number;
  now(): number;
}

export function deadlinePort(inner: ModelPort, deadline: Deadline): ModelPort {
  const expired = <T>(): LlmResult<T> =>
    fail({ kind: "timeout", message: `deadline_ms ${deadline.ms} passed: no further model calls were made`, deferred: true });
  const run = async <T>(call: () => Promise<LlmResult<T>>): Promise<LlmResult<T>> => {
    const left = deadline.at - deadline.now();
    if (left <= 0) return expired();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<LlmResult<T>>((resolve) => {
      timer = setTimeout(() => resolve(expired()), left);
    });
    try {
      return await Promise.race([call(), late]);
    } finally {
      clearTimeout(timer);
    }
  };
  return wrapEveryCall(inner, run);
}
