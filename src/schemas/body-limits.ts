/**
 * Every endpoint's body cap and what to do past it, in one place: the handlers read bodies under
 * these (src/http/body.ts), and /openapi.json publishes them (src/openapi/).
 */

/** An endpoint's body cap and what to do past it (a 413 says both). */
export interface BodyLimit {
  bytes: number;
  /** Advice that fits the endpoint, e.g. "split the benchmark into several runs". */
  advice: string;
}

/** Large enough for 1,000 questions with manual answers from several models. */
export const RUN_BODY_LIMIT: BodyLimit = {
  bytes: 32_000_000,
  advice: "split the benchmark into several runs (or store it with POST /v1/benchmarks and send benchmark_id)",
};

/** The same cap as a run body: a stored benchmark is what a run would have carried inline. */
export const BENCHMARK_BODY_LIMIT: BodyLimit = { bytes: 32_000_000, advice: "split the questions into several benchmarks" };

export const IMPORT_BODY_LIMIT: BodyLimit = {
  bytes: 32_000_000,
  advice: "split the checkpoint's questions into several checkpoints and import each",
};

/** One output (with its input and reference) to grade. */
export const JUDGE_BODY_LIMIT: BodyLimit = {
  bytes: 1_000_000,
  advice: "a judge request grades one output: send a shorter output, input or reference (for many outputs, use several requests or a run)",
};

export const CALIBRATE_BODY_LIMIT: BodyLimit = {
  bytes: 8_000_000,
  advice: "send the items in several calibrate requests (each of at most 200 items), or shorten their outputs",
};

export const KEY_BODY_LIMIT: BodyLimit = { bytes: 16_000, advice: "a key request is a name, scopes and an expiry; send only those" };

export const SECRET_BODY_LIMIT: BodyLimit = { bytes: 32_000, advice: "a secret is one key with its interface, origins and limits" };

export const ADMIN_BODY_LIMIT: BodyLimit = { bytes: 64_000, advice: "a tenant is a name and a few settings; send only those" };

export const ENDPOINT_BODY_LIMIT: BodyLimit = { bytes: 16_000, advice: "an endpoint is a url, a description, event types and two flags" };

export const TRIGGER_BODY_LIMIT: BodyLimit = {
  bytes: 1_000_000,
  advice: "a trigger holds a config and a mapping, not a benchmark (store that with POST /v1/benchmarks)",
};

export const PRESET_BODY_LIMIT: BodyLimit = {
  bytes: 1_000_000,
  advice: "a preset is one verification config; store benchmarks with POST /v1/benchmarks",
};

export const JUDGE_TOKEN_BODY_LIMIT: BodyLimit = { bytes: 16_000, advice: "a judge token request is a name; send only that" };
