/**
 * Every call through a shared limiter: acquire a lease (waiting in place for short waits), call,
 * release with what happened (tokens used, a 429 and its retry-after). The limiter itself is a
 * port too (`LimiterClient`), so this file stays platform-free; at the edge it is the
 * ProviderLimiter Durable Object.
 *
 * When the limiter asks for one wait longer than `maxWaitMs` (a provider's retry-after, an empty
 * rate bucket), or the waits so far and this one would pass `maxQueueMs`, the call is not made: the
 * result is a `rate_limit` error marked `deferred` with the wait as `retryAfterMs`, which the retry
 * decorator hands back to the queue without spending the job's rate-limit budget (no provider said no).
 */
import type { LlmResult, Message, ModelPort } from "../llm/port";

/** `reason` of a refusal: every slot taken (`concurrency`), an empty rate bucket, or a key blocked by a retry-after. */
export type LimiterGrant =
  | { granted: true; lease_id: string }
  | { granted: false; wait_ms: number; reason?: "concurrency" | "rate" | "blocked" };

export interface LimiterClient {
  /** `since`: when this call first asked; the limiter serves its line in that order, so asking again keeps the place. */
  acquire(estimatedTokens: number, since?: number): Promise<LimiterGrant>;
  /**
   * Resolves once the slot is free for others: `"handed_on"` when it went straight to another call
   * waiting in this isolate (lease-pool.ts), whose request has yet to go out; otherwise once the
   * limiter has heard of it.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a client that only ever gives slots back resolves with nothing
  release(report: CallReport): Promise<ReleaseOutcome | void>;
  /**
   * Whether a granted lease may still be used for a call not yet made: false once the key has had
   * a 429 since the lease's grant (lease-pool.ts). A client without it: always.
   */
  usable?(lease_id: string): boolean;
}

/** What a call under a lease reports when it gives the lease up. */
export interface CallReport {
  lease_id: string;
  /** No call was made under the lease this time (it was granted before a 429 and not used). */
  unused?: true;
  rate_limited?: boolean;
  retry_after_ms?: number;
  tokens_used?: number;
}

export type ReleaseOutcome = "handed_on";

export interface LimitedEnv {
  sleep(ms: number): Promise<void>;
  /** The limiter may hold an acquire until a slot frees; elapsed time, not sleeps, bounds the wait. */
  now(): number;
  /**
   * Takes the release when the caller need not wait for it: a /v1/judge request hands it to its
   * waitUntil and answers without the round trip to the limiter (and without the yield below).
   * Unset (queue jobs): the call waits for its release.
   */
  settleLater?: (release: Promise<unknown>) => void;
  /** The next turn of the event loop (default: `sleep(0)`); `limitedPort` shares one among its calls (`sharedSleeps`). */
  nextTurn?: () => Promise<void>;
}

export interface LimitedOptions {
  /**
   * Longest single wait in place when the provider's rate or a retry-after is what holds the call
   * (issue 26: a retry-after up to 5 s is waited in place, a longer one hands the job back). Each
   * 429 of the key's other calls blocks it anew: a call behind many short ones waits them all.
   */
  maxWaitMs: number;
  /**
   * Longest total wait in place, in line for a slot other calls of the key hold and through short
   * holds. Such a wait costs a consumer nothing but wall time, and the slot comes within a call's
   * latency or so; handing the job back would only add the queue's delay.
   */
  maxQueueMs: number;
  /** Output tokens assumed when a request does not say (for the tokens-per-minute bucket). */
  defaultOutputTokens: number;
}

export const DEFAULT_LIMITED_OPTIONS: LimitedOptions = { maxWaitMs: 5_000, maxQueueMs: 60_000, defaultOutputTokens: 1_000 };

/** ~4 characters a token: the same rule the providers' own estimators start from. */
export function estimateTokens(messages: readonly Message[] | undefined, inputs: readonly string[] | undefined, maxTokens: number): number {
  let chars = 0;
  for (const m of messages ?? []) chars += m.content.length;
  for (const s of inputs ?? []) chars += s.length;
  return Math.ceil(chars / 4) + maxTokens;
}

/**
 * `lineSince`: the place in the limiter's line the call asks for (default: when it first asked).
 * A queue job's calls all ask from the job's start (`inLineFrom`), so the judge call that follows
 * a job's answer keeps the place the job took instead of queuing behind every call asked since:
 * jobs already begun finish first, and a slot a finished call hands on can go to it, where it
 * would otherwise go back to the limiter and be asked for again (lease-pool.ts hands a slot only
 * to calls that asked before its grant). The wait's bound still counts from this call's own start.
 * A place is never more than `maxQueueMs` older than the call: a long job (an agent's many turns)
 * does not go ahead of every newer caller on the key, a /v1/judge request's among them, for longer
 * than any call may wait in place.
 */
export async function limitedCall<T>(
  client: LimiterClient,
  estimated: number,
  call: () => Promise<LlmResult<T>>,
  env: LimitedEnv,
  opts: LimitedOptions,
  lineSince?: number,
): Promise<LlmResult<T>> {
  const started = env.now();
  const since = Math.min(Math.max(lineSince ?? started, started - opts.maxQueueMs), started);
  for (;;) {
    const grant = await client.acquire(estimated, since);
    // A lease granted before a 429 the key has had since goes back unused: the limiter decides again.
    if (grant.granted && client.usable?.(grant.lease_id) === false) {
      await client.release({ lease_id: grant.lease_id, unused: true }).catch(() => undefined);
      continue;
    }
    if (grant.granted) return runLeased(client, grant.lease_id, call, env);
    const tooLong = grant.reason !== "concurrency" && grant.wait_ms > opts.maxWaitMs;
    if (tooLong || env.now() - started + grant.wait_ms > opts.maxQueueMs) {
      return {
        ok: false,
        error: {
          kind: "rate_limit",
          message: `the provider key's shared limit asks to wait ${grant.wait_ms} ms`,
          retryAfterMs: grant.wait_ms,
          deferred: true,
        },
      };
    }
    await env.sleep(grant.wait_ms);
  }
}

async function runLeased<T>(
  client: LimiterClient,
  lease_id: string,
  call: () => Promise<LlmResult<T>>,
  env: LimitedEnv,
): Promise<LlmResult<T>> {
  let result: LlmResult<T> | undefined;
  try {
    result = await call();
    return result;
  } finally {
    const report: CallReport = { lease_id };
    if (result?.ok) {
      const usage = (result.value as { usage?: { total_tokens?: number } }).usage;
      if (usage?.total_tokens !== undefined) report.tokens_used = usage.total_tokens;
    } else if (result && result.error.kind === "rate_limit") {
      report.rate_limited = true;
      if (result.error.retryAfterMs !== undefined) report.retry_after_ms = result.error.retryAfterMs;
    }
    // A limiter that cannot be told is not a reason to lose the call's result; its lease expires.
    const released = client.release(report).catch(() => undefined);
    if (env.settleLater) env.settleLater(released);
    // A slot handed on goes to a call that has yet to send its request: give it a turn of the event
    // loop before this job's follow-up work (parsing, the next stage, saving) queues up in front of
    // it. In local workerd, where every isolate shares one thread, requests leave only when the
    // thread runs out of queued work (bench/throughput: a wave of 64 replies delayed the next
    // wave's requests by ~150 ms, ~100 ms with this turn). A slot given back needs no turn of its
    // own: the call waits for the limiter's answer, which comes after all that is queued (328 of a
    // run's 800 releases, each of which took a timer before).
    else if ((await released) === "handed_on") await (env.nextTurn ?? (() => env.sleep(0)))();
  }
}

/**
 * Sleeps of one port that end at the same moment share one timer: each timer that fires is a trip
 * through the runtime's event loop, and two kinds come in waves. A wave of replies hands slots on,
 * each followed by a turn (`ms` 0: any turn still pending is shared); and the calls waiting in the
 * limiter's line all hear the same refusal when its hold ends, each then waiting the same short
 * `wait_ms` (bench/throughput: 186 timers a run, one a call). A sleep of `ms` > 0 joins only a
 * timer asked for at the same `now()` (workerd's clock stands still within a turn), so none wakes
 * early. Kept per port, so per invocation: workerd settles a promise only in the request that
 * made it.
 */
export function sharedSleeps(sleep: (ms: number) => Promise<void>, now: () => number): (ms: number) => Promise<void> {
  const timers = new Map<number, Promise<void>>();
  return (ms) => {
    // A turn is keyed apart from every deadline (-1 is never one).
    const key = ms <= 0 ? -1 : now() + ms;
    let timer = timers.get(key);
    if (!timer) {
      timer = sleep(Math.max(0, ms)).then(() => void timers.delete(key));
      timers.set(key, timer);
    }
    return timer;
  };
}

/** A limited port whose calls can also ask from an earlier place in the limiter's line (a queue job's start). */
export interface LinedPort extends ModelPort {
  inLineFrom(since: number): ModelPort;
}

/** The port's calls in the line from `since` when it is a limited one; any other port as it is. */
export function portInLine(port: ModelPort, since: number): ModelPort {
  return "inLineFrom" in port ? (port as LinedPort).inLineFrom(since) : port;
}

export function limitedPort(inner: ModelPort, client: LimiterClient, env: LimitedEnv, opts = DEFAULT_LIMITED_OPTIONS): LinedPort {
  // Output is estimated at most `defaultOutputTokens`: max_tokens is a ceiling (Karenina's default is
  // 16,384) and charging it up front would starve the tokens-per-minute bucket; release charges
  // what the call really used.
  const out = opts.defaultOutputTokens;
  const cap = (max?: number) => Math.min(max ?? out, out);
  let callEnv = env;
  if (!env.settleLater && !env.nextTurn) {
    const sleep = sharedSleeps(env.sleep, env.now);
    callEnv = { ...env, sleep, nextTurn: () => sleep(0) };
  }
  const portFrom = (lineSince?: number): ModelPort => {
    const run = <T>(est: number, call: () => Promise<LlmResult<T>>) => limitedCall(client, est, call, callEnv, opts, lineSince);
    return {
      identity: inner.identity,
      chat: (req) => run(estimateTokens(req.messages, undefined, cap(req.max_tokens)), () => inner.chat(req)),
      structured: (req) => run(estimateTokens(req.messages, undefined, cap(req.max_tokens)), () => inner.structured(req)),
      embed: (req) => run(estimateTokens(undefined, req.inputs, 0), () => inner.embed(req)),
      toolTurn: (req) => run(estimateTokens(req.messages, undefined, cap(req.max_tokens)), () => inner.toolTurn(req)),
      logprobs: (req) => run(estimateTokens(req.messages, undefined, cap(req.max_tokens)), () => inner.logprobs(req)),
    };
  };
  return { ...portFrom(), inLineFrom: portFrom };
}
