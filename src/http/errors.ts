/**
 * API errors: one tagged union, mapped to status codes in one table. Messages are written for
 * the caller (what failed, what to do); internal detail stays in logs.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { FieldIssue } from "../schemas/field-issue";

export type ApiError =
  | { code: "invalid_body"; message: string; issues: FieldIssue[] }
  | { code: "invalid_query"; message: string; issues: FieldIssue[] }
  | { code: "invalid_json"; message: string }
  | { code: "body_too_large"; message: string }
  | { code: "unsupported_media_type"; message: string }
  | { code: "unauthorized"; message: string }
  | { code: "forbidden"; message: string }
  | { code: "not_found"; message: string }
  | { code: "method_not_allowed"; message: string }
  | { code: "idempotency_conflict"; message: string }
  | { code: "run_active"; message: string }
  /** A finished run cannot be cancelled; `status` is how it ended. */
  | { code: "run_finished"; message: string; status: string }
  | { code: "delivery_state"; message: string }
  | { code: "rate_limited"; message: string }
  | { code: "quota_exceeded"; message: string }
  | { code: "not_configured"; message: string }
  | { code: "internal"; message: string };

const STATUS: Record<ApiError["code"], ContentfulStatusCode> = {
  invalid_body: 400,
  invalid_query: 400,
  invalid_json: 400,
  body_too_large: 413,
  unsupported_media_type: 415,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_conflict: 409,
  run_active: 409,
  run_finished: 409,
  delivery_state: 409,
  rate_limited: 429,
  quota_exceeded: 429,
  not_configured: 503,
  internal: 500,
};

/** Thrown inside handlers; the app's error handler turns it into the wire shape. */
export class ApiFailure extends Error {
  constructor(readonly error: ApiError) {
    super(error.message);
  }
}

/** Headers a status requires (RFC 9110 §11.6.1: a 401 names the scheme to use). */
const HEADERS: Partial<Record<ApiError["code"], Record<string, string>>> = {
  unauthorized: { "WWW-Authenticate": 'Bearer realm="edgeval"' },
};

/** `headers`: per-response headers, e.g. a 405's `Allow`. */
export function errorResponse(c: Context, error: ApiError, headers: Record<string, string> = {}): Response {
  const requestId = c.get("requestId" as never) as string | undefined;
  return c.json({ error: { ...error, request_id: requestId } }, STATUS[error.code], { ...HEADERS[error.code], ...headers });
}

/** zod path segments → `a.b[2].c` */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out || "(body)";
}

export function invalidBody(issues: FieldIssue[]): ApiFailure {
  return new ApiFailure({ code: "invalid_body", message: summary(issues, "invalid body"), issues });
}

/** A bad query parameter (unknown, or of the wrong form); the body, if any, was not read. */
export function invalidQuery(issues: FieldIssue[]): ApiFailure {
  return new ApiFailure({ code: "invalid_query", message: summary(issues, "invalid query"), issues });
}

function summary(issues: FieldIssue[], fallback: string): string {
  const first = issues[0];
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return first ? `${first.path}: ${first.message}${more}` : fallback;
}
