/**
 * The published catalogue of error codes: when each is answered and what the caller should do.
 * Keyed by the one list of codes (src/schemas/api-error.ts), so a new code does not compile until
 * it is described here; the status comes from the table the handlers answer with.
 */
import { ERROR_STATUS, type ErrorCode } from "../schemas/api-error";

export interface CatalogueEntry {
  code: ErrorCode;
  status: number;
  when: string;
  fix: string;
}

const ENTRIES: Record<ErrorCode, Omit<CatalogueEntry, "code" | "status">> = {
  invalid_body: {
    when: "The body failed validation; `issues` lists every failing field by its path, with what was expected and what came.",
    fix: "Correct the fields named; nothing was written.",
  },
  invalid_query: {
    when: "A query parameter is unknown, malformed or given twice (path `query <name>`), e.g. a cursor this API did not return, or any parameter on a route that takes none.",
    fix: "Send only the documented parameters; restart paging without a cursor.",
  },
  invalid_json: { when: "The body is not valid JSON.", fix: "Send one JSON value, UTF-8 encoded." },
  body_too_large: {
    when: "The body is over the endpoint's cap (see each operation's x-max-body-bytes).",
    fix: "Follow the advice in the message, e.g. split the benchmark into several runs.",
  },
  unsupported_media_type: {
    when: "The Content-Type is not application/json (or application/ld+json for a checkpoint import).",
    fix: "Send Content-Type: application/json.",
  },
  unauthorized: {
    when: "No bearer token, or an unknown, revoked or expired key. Carries WWW-Authenticate: Bearer.",
    fix: "Send Authorization: Bearer <API key>; create or rotate keys with /v1/keys.",
  },
  forbidden: {
    when: "The key lacks the operation's scope, or asks to grant scopes it does not hold.",
    fix: "Use a key that has the scope named in the message.",
  },
  tenant_disabled: {
    when: "The credential is good but its tenant is disabled by the operator: an API key, a trigger's signed delivery and a judge token alike (the message names the tenant).",
    fix: 'Ask the operator of this deployment to enable the tenant (PATCH /v1/admin/tenants/{id} {"disabled": false}); a new key would be refused too.',
  },
  not_found: {
    when: "No such path, or no such resource for this tenant (another tenant's resource is not found either).",
    fix: "Check the id; list resources with the matching GET.",
  },
  method_not_allowed: {
    when: "The path exists but does not take this method; the Allow header lists those it takes.",
    fix: "Use one of the methods in Allow.",
  },
  idempotency_conflict: {
    when: "The Idempotency-Key was already used with a different body.",
    fix: "Use a new key for a new run; the same key only re-sends the same body.",
  },
  idempotency_in_progress: {
    when: "The Idempotency-Key (or a trigger's delivery id) is held by a first request whose run has not been started: it is still being submitted, or it was refused and is letting the key go.",
    fix: "Retry the same request in a few seconds: it answers the first request's run_id once that run exists, or starts the run.",
  },
  run_active: {
    when: "The run is still queued or running, or it was cancelled and calls it had started are still finishing (its finished_at is not set yet).",
    fix: "Wait until it has finished (or cancel it), then retry; a cancelled run finishes within seconds.",
  },
  run_finished: {
    when: "A cancel asked of a run that has already ended; `status` says how it ended.",
    fix: "Nothing to stop: read the run's results.",
  },
  key_revoked: {
    when: "A rotation asked of a key that is revoked: a revoked key stays revoked.",
    fix: "Create a new key with POST /v1/keys (the same name and scopes, if wanted).",
  },
  run_deleting: {
    when: "A DELETE of the run began and did not finish (it failed part-way): part of the run may be gone, so it is not read.",
    fix: "Repeat DELETE /v1/runs/{id}: it finishes the deletion (once: one audit entry, usage unchanged).",
  },
  export_not_ready: {
    when: "A download of an export that is still building, or that failed (the message says which).",
    fix: "Poll GET /v1/runs/{id}/exports/{export_id} until status is ready; after a failure request a new export.",
  },
  delivery_state: {
    when: "A webhook delivery cannot be retried now: its endpoint is disabled, or the delivery is still pending.",
    fix: "Enable the endpoint first; a pending delivery is retried on its schedule.",
  },
  endpoint_limit: {
    when: "The tenant already has 20 webhook endpoints, the most it may have.",
    fix: "Delete an endpoint, or widen an existing one's event_types or all_runs.",
  },
  rate_limited: {
    when: "The tenant's requests_per_minute quota is spent. Carries Retry-After and RateLimit headers.",
    fix: "Wait Retry-After seconds and retry.",
  },
  quota_exceeded: {
    when: "Too many runs queued or running at once, or the monthly spend quota is spent. Carries Retry-After.",
    fix: "Wait Retry-After seconds, or ask the operator to raise the quota.",
  },
  not_configured: {
    when: "The deployment lacks a secret this feature needs (e.g. EDGEVAL_KEY_PEPPER, EDGEVAL_SECRETS_KEK, EDGEVAL_ADMIN_TOKEN).",
    fix: "The operator sets the secret named in the message.",
  },
  judge_undecided: {
    when: "A stored judge graded through POST /v1/judges/:id/promptfoo could not decide: a model kept failing, or its deadline_ms passed. The output was not judged wrong.",
    fix: "Retry the test; if it persists, look at the judge's models and deadline_ms (GET /v1/judges/:id) or grade the output with POST /v1/judge to see each unit's error.",
  },
  internal: { when: "An unexpected failure inside edgeval.", fix: "Retry; report the request_id if it persists." },
};

export const ERROR_CATALOGUE: readonly CatalogueEntry[] = (Object.keys(ENTRIES) as ErrorCode[]).map((code) => ({
  code,
  status: ERROR_STATUS[code],
  ...ENTRIES[code],
}));
