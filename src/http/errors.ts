/**
 * API errors: one tagged union, mapped to status codes in one table. Messages are written for
 * the caller (what failed, what to do); internal detail stays in logs.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type ErrorCode, ERROR_STATUS } from "../schemas/api-error";
import type { FieldIssue } from "../schemas/field-issue";

/** invalid_body / invalid_query list every failing field; every other code is a message. */
export type ApiError =
  | { code: "invalid_body" | "invalid_query"; message: string; issues: FieldIssue[] }
  /** A finished run cannot be cancelled; `status` is how it ended. */
  | { code: "run_finished"; message: string; status: string }
  | { code: Exclude<ErrorCode, "invalid_body" | "invalid_query" | "run_finished">; message: string };

/** Thrown inside handlers; the app's error handler turns it into the wire shape. */
export class ApiFailure extends Error {
  constructor(readonly error: ApiError) {
    super(error.message);
  }
}

/** Headers a status requires (RFC 9110 §11.6.1: a 401 names the scheme to use). */
const HEADERS: Partial<Record<ErrorCode, Record<string, string>>> = {
  unauthorized: { "WWW-Authenticate": 'Bearer realm="edgeval"' },
};

/** `headers`: per-response headers, e.g. a 405's `Allow`. */
export function errorResponse(c: Context, error: ApiError, headers: Record<string, string> = {}): Response {
  const requestId = c.get("requestId" as never) as string | undefined;
  return c.json({ error: { ...error, request_id: requestId } }, ERROR_STATUS[error.code] as ContentfulStatusCode, {
    ...HEADERS[error.code],
    ...headers,
  });
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

/**
 * A disabled tenant's credential (API key, trigger delivery, judge token): one answer everywhere,
 * a 403 rather than a 401 because the credential is good (a 401 sent clients to rotate keys that
 * would be refused as well), naming whom to ask.
 */
export function tenantDisabled(tenantId: string): ApiFailure {
  return new ApiFailure({
    code: "tenant_disabled",
    message: `tenant ${tenantId} is disabled: its API keys, trigger deliveries and judge tokens are refused until it is enabled again; ask the operator of this edgeval deployment (PATCH /v1/admin/tenants/${tenantId} {"disabled": false})`,
  });
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
