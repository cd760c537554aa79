import { describe, expect, it } from "vitest";
import type { ChatResponse, LlmError, LlmResult, ModelPort } from "../../../src/llm/port";
import {
  backoffMs,
  decide,
  DEFAULT_RETRY_POLICY,
  emptyLedger,
  KARENINA_BUDGETS,
  retriesUsed,
  retryingPort,
  scaledPolicy,
  withRetryPolicyConfig,
  withRetry,
} from "../../../src/llm/retrying";
import { RetryPolicyConfig } from "../../../src/schemas/retry-policy";

const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2, model: "m" };
const okChat: LlmResult<ChatResponse> = { ok: true, value: { text: "hi", usage } };
const err = (kind: LlmError["kind"], extra: Partial<LlmError> = {}): LlmResult<ChatResponse> => ({
  ok: false,
  error: { kind, message: kind, ...extra },
});

/** A fake environment: sleeps are recorded, not waited; the RNG is a fixed sequence. */
function env(randoms: number[] = [0.5]) {
  const slept: number[] = [];
  let i = 0;
  return { slept, sleep: async (ms: number) => void slept.push(ms), random: () => randoms[i++ % randoms.length]! };
}

function scripted(results: LlmResult<ChatResponse>[]) {
  let calls = 0;
  const call = async () => results[Math.min(calls++, results.length - 1)]!;
  return { call, calls: () => calls };
}

describe("retries by error class", () => {
  it("uses Karenina's budgets: connection 3, timeout 3, rate_limit 5, server_error 2", () => {
    expect(KARENINA_BUDGETS).toEqual({ connection: 3, timeout: 3, rate_limit: 5, server_error: 2 });
  });

  it("backs off exponentially per class from Karenina's minimum, with jitter from the injected RNG, capped", () => {
    const p = DEFAULT_RETRY_POLICY;
    expect(backoffMs("server_error", 0, p, () => 0)).toBe(1_000);
    expect(backoffMs("server_error", 0, p, () => 0.999)).toBe(1_999);
    expect(backoffMs("server_error", 2, p, () => 0)).toBe(4_000);
    expect(backoffMs("server_error", 10, p, () => 0)).toBe(7_500);
    expect(backoffMs("connection", 0, p, () => 0)).toBe(500);
    expect(backoffMs("rate_limit", 0, scaledPolicy(p, 0.01), () => 0)).toBe(25);
  });

  // Karenina's CategoryRetryConfig (utils/retry_policy.py:150-153): max_attempts retries, backoff_min/max in
  // seconds, delay n = min(backoff_min × backoff_multiplier^n, backoff_max) (retry_policy.py:314).
  it("a Karenina retry_policy replaces the budget, backoff range and multiplier of the classes it names, keeping the scale", () => {
    const cfg = RetryPolicyConfig.parse({
      server_error: { max_attempts: 4, backoff_min: 3, backoff_max: 100, backoff_multiplier: 3 },
      timeout: {},
    });
    const p = withRetryPolicyConfig(DEFAULT_RETRY_POLICY, cfg);
    expect(p.budgets).toEqual({ connection: 3, timeout: 0, rate_limit: 5, server_error: 4 });
    expect(backoffMs("server_error", 2, p, () => 0)).toBe(13_500); // 3 s × 3² = 27 s, jitter floor ½
    expect(backoffMs("timeout", 0, p, () => 0)).toBe(500); // a named class takes CategoryRetryConfig's defaults: 1 s
    expect(backoffMs("connection", 0, p, () => 0)).toBe(500);
    expect(backoffMs("server_error", 0, withRetryPolicyConfig(scaledPolicy(DEFAULT_RETRY_POLICY, 0.01), cfg), () => 0)).toBe(15);
    expect(withRetryPolicyConfig(DEFAULT_RETRY_POLICY, null)).toBe(DEFAULT_RETRY_POLICY);
  });

  it("retries a server error in place and returns the success, counting the retry", async () => {
    const s = scripted([err("server_error"), okChat]);
    const ledger = emptyLedger();
    const e = env([0]);
    const r = await withRetry(s.call, ledger, DEFAULT_RETRY_POLICY, e);
    expect(r.ok).toBe(true);
    expect(s.calls()).toBe(2);
    expect(ledger.server_error).toBe(1);
    expect(e.slept).toEqual([1_000]);
  });

  it("stops after the class budget and marks the error exhausted", async () => {
    const s = scripted([err("server_error")]);
    const ledger = emptyLedger();
    const r = await withRetry(s.call, ledger, DEFAULT_RETRY_POLICY, env([0]));
    expect(s.calls()).toBe(3); // first call + 2 retries
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.exhausted).toBe(true);
      expect(r.error.message).toMatch(/server_error retries exhausted: 2/);
    }
  });

  it("never retries auth, bad_request or invalid_output, and does not mark them exhausted", async () => {
    for (const kind of ["auth", "bad_request", "invalid_output", "unsupported"] as const) {
      const s = scripted([err(kind), okChat]);
      const r = await withRetry(s.call, emptyLedger(), DEFAULT_RETRY_POLICY, env());
      expect(s.calls()).toBe(1);
      expect(!r.ok && r.error.exhausted).toBeFalsy();
    }
  });

  it("waits the provider's retry-after when it is longer than the backoff", async () => {
    const s = scripted([err("rate_limit", { retryAfterMs: 3_000 }), okChat]);
    const e = env([0]);
    await withRetry(s.call, emptyLedger(), DEFAULT_RETRY_POLICY, e);
    expect(e.slept).toEqual([3_000]);
  });

  it("hands a wait beyond the in-place limit back to the caller with the wait as retryAfterMs", async () => {
    const s = scripted([err("rate_limit", { retryAfterMs: 30_000 }), okChat]);
    const ledger = emptyLedger();
    const e = env();
    const r = await withRetry(s.call, ledger, DEFAULT_RETRY_POLICY, e);
    expect(s.calls()).toBe(1);
    expect(e.slept).toEqual([]);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.retryAfterMs).toBe(30_000);
      expect(r.error.exhausted).toBeFalsy();
    }
    expect(ledger.rate_limit).toBe(1); // the handed-back retry is spent
  });

  it("carries a ledger across deliveries: a job that used 4 rate-limit retries has one left", async () => {
    const ledger = { ...emptyLedger(), rate_limit: 4 };
    expect(decide({ kind: "rate_limit", message: "" }, ledger, DEFAULT_RETRY_POLICY, () => 0).action).toBe("hand_back"); // 5 s × 2^4, capped at 30 s
    expect(decide({ kind: "rate_limit", message: "" }, ledger, DEFAULT_RETRY_POLICY, () => 0)).toEqual({
      action: "give_up",
      exhausted: true,
    });
  });

  it("shares one ledger between all ports of a job", async () => {
    const failing: ModelPort = {
      identity: { interface: "openai", model_name: "m" },
      chat: async () => err("timeout"),
      structured: async () => ({ ok: false, error: { kind: "timeout", message: "t" } }),
      embed: async () => ({ ok: false, error: { kind: "timeout", message: "t" } }),
      toolTurn: async () => ({ ok: false, error: { kind: "timeout", message: "t" } }),
      logprobs: async () => ({ ok: false, error: { kind: "timeout", message: "t" } }),
    };
    const ledger = emptyLedger();
    const a = retryingPort(failing, ledger, DEFAULT_RETRY_POLICY, env([0]));
    const b = retryingPort(failing, ledger, DEFAULT_RETRY_POLICY, env([0]));
    await a.chat({ messages: [] });
    const r = await b.chat({ messages: [] });
    expect(ledger.timeout).toBe(3);
    expect(retriesUsed(ledger)).toBe(3);
    expect(!r.ok && r.error.exhausted).toBe(true);
  });
});
