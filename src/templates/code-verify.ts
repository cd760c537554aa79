/**
 * Custom verify (Karenina's hand-written `verify()` on a classic answer template), as a port.
 *
 * The core never runs the code itself: a `CodeVerifierPort` does (the edge dispatches JavaScript
 * to a QuickJS sandbox and Python to the Python-subset interpreter). This file only defines the
 * contract and turns an outcome into the field verification the pipeline records.
 *
 * Any failure (the code threw, ran away, ran out of memory, returned something unusable, the
 * language is unavailable, there is no port) says nothing about the answer: verify_result null and
 * `field_verification_error` set, which the failure classifier turns into `template_validation`
 * (group system), verdict `error`. Karenina records false (a content failure) here; edgeval does
 * not call an answer wrong because the grader's code broke. Never a crash, never a pass.
 */
import type { AnswerTemplate, CustomVerify } from "./template-schema";
import { groundTruthOf } from "./verify";
import type { FieldVerification } from "./verify";

export interface CodeVerifyRequest {
  language: CustomVerify["language"];
  source: string;
  /** The judge's parsed fields (the `answer` argument of verify). */
  parsed: Record<string, unknown>;
  /** `{field: ground_truth}`, Karenina's `self.correct`. */
  ground_truth: Record<string, unknown>;
  /** The answering model's raw response (`context.raw_trace`). */
  raw_trace: string;
}

export type CodeVerifyOutcome =
  | {
      ok: true;
      verify_result: boolean;
      verify_granular_result: number | null;
      field_results: Record<string, boolean | null> | null;
    }
  | { ok: false; error: string };

export interface CodeVerifierPort {
  verify(req: CodeVerifyRequest): Promise<CodeVerifyOutcome>;
}

/** Recorded as `composition_strategy` so a reader sees the verdict came from code, not a tree. */
export const CUSTOM_VERIFY_STRATEGY = "custom_verify";

/** Runs the template's custom verify through the port; every failure becomes an undecided (null) verdict. */
export async function verifyWithCode(
  template: AnswerTemplate,
  custom: CustomVerify,
  parsed: Record<string, unknown>,
  rawTrace: string,
  port: CodeVerifierPort | undefined,
): Promise<FieldVerification> {
  const { language, source } = custom;
  let outcome: CodeVerifyOutcome;
  if (!port) {
    outcome = { ok: false, error: `custom verify (${language}) is not available: no code verifier configured` };
  } else {
    try {
      outcome = await port.verify({ language, source, parsed, ground_truth: groundTruthOf(template), raw_trace: rawTrace });
    } catch (e) {
      // A port must not throw; if one does, the answer still only fails, the job goes on.
      outcome = { ok: false, error: `code verifier failed: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
  if (!outcome.ok) {
    return {
      field_results: {},
      field_scores: {},
      verify_result: null,
      verify_granular_result: null,
      composition_strategy: CUSTOM_VERIFY_STRATEGY,
      field_verification_error: `Custom verify failed: ${outcome.error}`,
    };
  }
  return {
    field_results: outcome.field_results ?? {},
    field_scores: {},
    verify_result: outcome.verify_result,
    verify_granular_result: outcome.verify_granular_result,
    composition_strategy: CUSTOM_VERIFY_STRATEGY,
    field_verification_error: null,
  };
}

const RESULT_KEYS = new Set(["verify_result", "verify_granular_result", "field_results"]);

/**
 * What a custom verify returned, checked against the contract: a boolean, or
 * `{verify_result: boolean, verify_granular_result?: number in [0, 1], field_results?: {name: boolean | null}}`.
 * Shared by every language so they all accept and refuse the same things; anything else is an
 * error naming what came back.
 */
export function interpretVerifyReturn(value: unknown): CodeVerifyOutcome {
  if (typeof value === "boolean") {
    return { ok: true, verify_result: value, verify_granular_result: null, field_results: null };
  }
  const expected =
    "verify must return a boolean or {verify_result: boolean, verify_granular_result?: number, field_results?: {field: boolean | null}}";
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: `${expected}; it returned ${describe(value)}` };
  }
  const obj = value as Record<string, unknown>;
  const unknown = Object.keys(obj).filter((k) => !RESULT_KEYS.has(k));
  if (unknown.length > 0) return { ok: false, error: `${expected}; it returned unknown keys: ${unknown.join(", ")}` };
  if (typeof obj.verify_result !== "boolean") {
    return { ok: false, error: `${expected}; its verify_result is ${describe(obj.verify_result)}` };
  }
  const granular = obj.verify_granular_result ?? null;
  if (granular !== null && (typeof granular !== "number" || !Number.isFinite(granular) || granular < 0 || granular > 1)) {
    return { ok: false, error: `verify_granular_result must be a number from 0 to 1; it is ${describe(granular)}` };
  }
  const fields = obj.field_results ?? null;
  if (fields !== null) {
    const bad =
      typeof fields !== "object" || Array.isArray(fields)
        ? "it is not an object"
        : Object.entries(fields).find(([, v]) => v !== null && typeof v !== "boolean")?.[0];
    if (bad !== undefined) {
      const why = bad === "it is not an object" ? bad : `field "${bad}" is ${describe((fields as Record<string, unknown>)[bad])}`;
      return { ok: false, error: `field_results must map field names to true, false or null; ${why}` };
    }
  }
  return {
    ok: true,
    verify_result: obj.verify_result,
    verify_granular_result: granular as number | null,
    field_results: fields as Record<string, boolean | null> | null,
  };
}

/** A short, safe description of a returned value for an error message. */
function describe(value: unknown): string {
  if (value === undefined) return "undefined (nothing)";
  if (value === null) return "null";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  const kind = Array.isArray(value) ? "an array" : `a ${typeof value}`;
  return `${kind} ${text.length > 80 ? `${text.slice(0, 80)}…` : text}`;
}
