/**
 * Reads a JSON request body under a byte cap and validates it with a zod schema.
 * 415 for a non-JSON content type, 413 past the endpoint's cap (with advice that fits it), 400
 * with every failing field's path.
 */
import type { Context } from "hono";
import type { z } from "zod";
import { issueMessage, WIRE_PARSE, wireIssues } from "../lib/wire-issues";
import type { FieldIssue } from "../schemas/field-issue";
import type { BodyLimit } from "../schemas/body-limits";
import { ApiFailure, formatPath, invalidBody, invalidQuery } from "./errors";

export interface RawJsonBody {
  text: string;
  value: unknown;
}

export type { BodyLimit } from "../schemas/body-limits";

export async function readJson(c: Context, limit: BodyLimit): Promise<RawJsonBody> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) {
    throw new ApiFailure({
      code: "unsupported_media_type",
      message: `send the body as JSON with "Content-Type: application/json" (got ${JSON.stringify(type || "none")})`,
    });
  }
  const declared = Number(c.req.header("content-length") ?? "NaN");
  if (declared > limit.bytes) throw tooLarge(c, limit);
  const text = await readCapped(c, limit);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ApiFailure({ code: "invalid_json", message: `body is not valid JSON: ${(err as Error).message}` });
  }
  const bad = unstorable(value);
  if (bad) throw invalidBody([{ path: formatPath(bad.path), message: bad.message }]);
  return { text, value };
}

/**
 * For a route whose every field has a default: a request with no body at all (a bare `curl -X
 * POST`, a client that sends none) reads as `{}` instead of a 415 asking for JSON. A body that is
 * there is read and checked as readJson reads any.
 */
export async function readOptionalJson(c: Context, limit: BodyLimit): Promise<RawJsonBody> {
  if (c.req.raw.body === null || c.req.header("content-length") === "0") return { text: "", value: {} };
  return readJson(c, limit);
}

/**
 * One nesting limit for every body, checked before anything is validated or stored: deeper JSON
 * overflowed the stack in validation (500) or was stored and then could never be read back.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * What no body may hold, whatever its route: objects or arrays nested deeper than MAX_JSON_DEPTH,
 * keys named "__proto__", and numbers that are not finite (`1e999` parses to Infinity, which JSON cannot write back: stored,
 * it would read back as null). The first such place, or null. Iterative, so it cannot overflow.
 */
export function unstorable(value: unknown): { path: (string | number)[]; message: string } | null {
  type Entry = { v: unknown; depth: number; parent: Entry | null; key: string | number };
  const stack: Entry[] = [{ v: value, depth: 0, parent: null, key: "" }];
  const pathOf = (e: Entry) => {
    const path: (string | number)[] = [];
    for (let p: Entry | null = e; p?.parent; p = p.parent) path.unshift(p.key);
    return path;
  };
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (typeof e.v === "number" && !Number.isFinite(e.v))
      return { path: pathOf(e), message: "is not a finite number (a JSON number too large for a double)" };
    if (e.v === null || typeof e.v !== "object") continue;
    if (e.depth >= MAX_JSON_DEPTH)
      return { path: pathOf(e), message: `nested more than ${MAX_JSON_DEPTH} levels deep (edgeval's limit for every body)` };
    if (Array.isArray(e.v)) e.v.forEach((x, i) => stack.push({ v: x, depth: e.depth + 1, parent: e, key: i }));
    else
      for (const [k, x] of Object.entries(e.v)) {
        // JSON.parse makes "__proto__" an own key, but every object built from it (zod's parse, a
        // copy by assignment) sets the prototype instead and drops it: stored, it would read back
        // without it. Refused, like the other keys no body may hold.
        if (k === "__proto__")
          return { path: [...pathOf(e), k], message: 'is a key named "__proto__", which edgeval does not accept in any body (rename it)' };
        stack.push({ v: x, depth: e.depth + 1, parent: e, key: k });
      }
  }
  return null;
}

export function validate<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value, WIRE_PARSE);
  if (parsed.success) return parsed.data;
  throw invalidBody(fieldIssues(parsed.error.issues));
}

/**
 * A query string, every value of each parameter as sent (hono's `c.req.queries()`): the same
 * wording as a body, under code `invalid_query` and paths like `query limit`. A parameter given
 * more than once is refused: every parameter takes one value, and keeping the first
 * (`?verdict=pass&verdict=fail` read as pass alone) would ignore what the caller asked for.
 */
export function validateQuery<S extends z.ZodType>(schema: S, sent: Readonly<Record<string, readonly string[]>>): z.output<S> {
  const query: Record<string, string> = {};
  const repeated: FieldIssue[] = [];
  for (const [key, values] of Object.entries(sent)) {
    query[key] = values[0] ?? "";
    if (values.length > 1) repeated.push(repeatedParameter(key, values.length));
  }
  const parsed = schema.safeParse(query, { ...WIRE_PARSE, error: (iss) => issueMessage(asSent(iss, query)) });
  if (parsed.success && repeated.length === 0) return parsed.data;
  const invalid = parsed.success ? [] : fieldIssues(parsed.error.issues).map((i) => ({ ...i, path: `query ${i.path}` }));
  throw invalidQuery([...repeated, ...invalid.filter((i) => !repeated.some((r) => r.path === i.path))]);
}

/** A parameter sent `count` (> 1) times: every parameter takes one value. */
export function repeatedParameter(key: string, count: number): FieldIssue {
  return { path: `query ${key}`, message: `given ${count} times: give it once (each parameter takes one value)` };
}

/**
 * A coerced parameter's issue carries what coercing made of the text (`limit=abc` is NaN, `limit=`
 * is 0): it is worded with what the caller sent instead, whenever the two read differently.
 */
function asSent<I extends { path?: PropertyKey[]; input?: unknown }>(iss: I, query: Record<string, string>): I {
  const key = iss.path?.length === 1 ? iss.path[0] : undefined;
  const sent = typeof key === "string" && Object.hasOwn(query, key) ? query[key] : undefined;
  if (sent === undefined || typeof iss.input === "string" || String(iss.input) === sent) return iss;
  return { ...iss, input: sent };
}

/** Every issue as the wire lists it (src/lib/wire-issues.ts), with its path in the body. */
export function fieldIssues(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  return issues.flatMap((i) => wireIssues(i)).map((i) => ({ path: formatPath(i.path), message: i.message }));
}

async function readCapped(c: Context, limit: BodyLimit): Promise<string> {
  const bytes = await readBytes(c, limit);
  try {
    // fatal: bytes that are not UTF-8 are refused, never replaced by U+FFFD and stored as such.
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ApiFailure({ code: "invalid_json", message: "body is not valid UTF-8: send the JSON as UTF-8 text" });
  }
}

/** The body's exact bytes under the cap (a signature is over bytes, not over decoded text). */
export async function readBytes(c: Context, limit: BodyLimit): Promise<Uint8Array> {
  const declared = Number(c.req.header("content-length") ?? "NaN");
  if (declared > limit.bytes) throw tooLarge(c, limit);
  const req = c.req.raw;
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit.bytes) {
      await reader.cancel();
      throw tooLarge(c, limit);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const ch of chunks) {
    all.set(ch, at);
    at += ch.byteLength;
  }
  return all;
}

function tooLarge(c: Context, limit: BodyLimit): ApiFailure {
  return new ApiFailure({
    code: "body_too_large",
    message: `${c.req.method} ${c.req.path} takes a body of at most ${sizeText(limit.bytes)}; ${limit.advice}`,
  });
}

const sizeText = (bytes: number) => (bytes >= 1_000_000 ? `${bytes / 1_000_000} MB` : `${bytes / 1_000} KB`);
