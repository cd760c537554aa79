/**
 * The error envelope every non-2xx answer carries, and the list of its codes. The codes live here
 * (not in src/http/errors.ts) so the status table, the thrown union and the published catalogue
 * (src/openapi/error-catalogue.ts) all key on one list: a new code is a type error until each has it.
 */
import { z } from "zod";

export const ERROR_CODES = [
  "invalid_body",
  "invalid_query",
  "invalid_json",
  "body_too_large",
  "unsupported_media_type",
  "unauthorized",
  "forbidden",
  "tenant_disabled",
  "not_found",
  "method_not_allowed",
  "idempotency_conflict",
  "idempotency_in_progress",
  "run_active",
  "run_finished",
  "run_deleting",
  "key_revoked",
  "export_not_ready",
  "delivery_state",
  "endpoint_limit",
  "rate_limited",
  "quota_exceeded",
  "not_configured",
  "judge_undecided",
  "internal",
] as const;
export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** The HTTP status of each code: src/http/errors.ts answers with it, the catalogue publishes it. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_body: 400,
  invalid_query: 400,
  invalid_json: 400,
  body_too_large: 413,
  unsupported_media_type: 415,
  unauthorized: 401,
  forbidden: 403,
  tenant_disabled: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_conflict: 409,
  idempotency_in_progress: 409,
  run_active: 409,
  run_finished: 409,
  run_deleting: 410,
  key_revoked: 409,
  export_not_ready: 409,
  delivery_state: 409,
  endpoint_limit: 409,
  rate_limited: 429,
  quota_exceeded: 429,
  not_configured: 503,
  judge_undecided: 502,
  internal: 500,
};

/** One problem with a request (src/schemas/field-issue.ts), as the wire lists it. */
export const FieldIssueView = z.strictObject({
  path: z.string(),
  message: z.string(),
});

export const ErrorResponse = z.strictObject({
  error: z.strictObject({
    code: ErrorCode,
    message: z.string(),
    /** Present for invalid_body and invalid_query: every failing field by its path. */
    issues: z.array(FieldIssueView).optional(),
    /** Present for run_finished: how the run ended. */
    status: z.string().optional(),
    request_id: z.string().optional(),
  }),
});
export type ErrorResponse = z.infer<typeof ErrorResponse>;
