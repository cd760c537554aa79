/**
 * Turning what a model produced into a validated structured value, shared by every adapter.
 * Output that does not parse or does not satisfy the request's zod schema is `invalid_output`
 * carrying the (truncated) raw output: never a value, never a throw.
 */
import type { z } from "zod";
import { RAW_LIMIT, truncate } from "./errors";
import { extractJson } from "../lib/json-extract";
import { fail, ok, type LlmResult } from "./port";

export interface Validated<T> {
  value: T;
  raw: string;
}

/** Validates an already-parsed value (e.g. Anthropic tool input). */
export async function validateValue<T>(value: unknown, raw: string, schema: z.ZodType<T>): Promise<LlmResult<Validated<T>>> {
  let parsed: Awaited<ReturnType<z.ZodType<T>["safeParseAsync"]>>;
  try {
    parsed = await schema.safeParseAsync(value);
  } catch (e) {
    // a throwing refinement is the schema's bug, but still not a value
    return invalidOutput(`schema check threw: ${e instanceof Error ? e.message : String(e)}`, raw);
  }
  if (parsed.success) return ok({ value: parsed.data, raw });
  const issues = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`)
    .join("; ");
  return invalidOutput(`output does not match the schema: ${issues}`, raw);
}

/** Extracts JSON from model text (fenced, chatty or bare) and validates it. */
export async function validateText<T>(text: string, schema: z.ZodType<T>): Promise<LlmResult<Validated<T>>> {
  const extracted = extractJson(text);
  if (!extracted.ok) return invalidOutput(`no JSON in the model output (${extracted.error})`, text);
  return validateValue(extracted.value, text, schema);
}

export function invalidOutput<T = never>(message: string, raw: string): LlmResult<T> {
  return fail({ kind: "invalid_output", message, raw: truncate(raw, RAW_LIMIT) });
}

/** OpenAI json_schema names and Anthropic tool names: [a-zA-Z0-9_-]{1,64}. */
export function wireName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  return cleaned.length > 0 ? cleaned : "output";
}
