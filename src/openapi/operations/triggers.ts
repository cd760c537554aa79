/** /v1/triggers and /v1/hooks: signed inbound webhooks that start runs (src/triggers/README.md). */
import { ListQuery } from "../../schemas/api";
import { TRIGGER_BODY_LIMIT, RUN_BODY_LIMIT } from "../../schemas/body-limits";
import { SubmittedRun } from "../../schemas/run-views";
import { DeletedTrigger, HookPayload, HookPing, TriggerList, TriggerView, TriggerWithSecret } from "../../schemas/trigger-views";
import { CreateTriggerRequest } from "../../schemas/triggers";
import { RotateSecretRequest } from "../../schemas/webhooks";
import type { Operation } from "../operation";

const read = { kind: "tenant", scope: "triggers:read" } as const;
const write = { kind: "tenant", scope: "triggers:write" } as const;
const triggerId = { id: "The trigger_id (trg_…)." };

export const TRIGGER_OPERATIONS: Operation[] = [
  {
    method: "post",
    path: "/v1/triggers",
    operationId: "createTrigger",
    tag: "triggers",
    summary: "Store a trigger: a signed POST to its hook_url starts a run",
    description:
      "A stored benchmark, a config, endpoints to notify, a signing scheme (standard_webhooks, github, hex_header) and an RFC 6901 JSON Pointer mapping from the payload into run_name, question_ids, manual_answers and model overrides. The signing secret is in this answer only.",
    auth: write,
    body: {
      schema: CreateTriggerRequest,
      maxBytes: TRIGGER_BODY_LIMIT.bytes,
      example: {
        name: "on push",
        benchmark_id: "bm_0123456789abcdef",
        config: {
          answering_models: [{ id: "ci", interface: "manual", manual_answers: {} }],
          parsing_models: [{ id: "judge", interface: "openai", model_name: "gpt-4.1-mini" }],
        },
        signing: { scheme: "github" },
        mapping: { run_name: { pointer: "/head_commit/id" }, manual_answers: { pointer: "/answers" } },
      },
    },
    responses: { 201: { description: "The trigger and its signing secret (shown once).", schema: TriggerWithSecret } },
  },
  {
    method: "get",
    path: "/v1/triggers",
    operationId: "listTriggers",
    tag: "triggers",
    summary: "The tenant's triggers, newest first",
    auth: read,
    query: ListQuery,
    responses: { 200: { description: "One page (no secrets); follow next_cursor until it is null.", schema: TriggerList } },
  },
  {
    method: "get",
    path: "/v1/triggers/:id",
    operationId: "getTrigger",
    tag: "triggers",
    summary: "One trigger",
    auth: read,
    pathParams: triggerId,
    responses: { 200: { description: "The trigger (no secret).", schema: TriggerView } },
  },
  {
    method: "post",
    path: "/v1/triggers/:id/rotate-secret",
    operationId: "rotateTriggerSecret",
    tag: "triggers",
    summary: "Mint a new signing secret",
    description:
      "The replaced secret still verifies deliveries for overlap_seconds (default 24 h, at most 7 days; 0 ends it at once), so the sender can be moved to the new one without refused deliveries. One previous secret at a time: rotating again during an overlap ends it for the secret before.",
    auth: write,
    pathParams: triggerId,
    body: { schema: RotateSecretRequest, maxBytes: TRIGGER_BODY_LIMIT.bytes, example: { overlap_seconds: 3600 }, optional: true },
    responses: { 201: { description: "The trigger and its new secret (shown once).", schema: TriggerWithSecret } },
  },
  {
    method: "delete",
    path: "/v1/triggers/:id",
    operationId: "deleteTrigger",
    tag: "triggers",
    summary: "Delete a trigger",
    auth: write,
    pathParams: triggerId,
    responses: { 200: { description: "Deleted.", schema: DeletedTrigger } },
  },
  {
    method: "post",
    path: "/v1/hooks/:trigger_id",
    operationId: "deliverHook",
    tag: "triggers",
    summary: "A signed delivery: starts the trigger's run",
    description:
      "No API key: the signature is the credential (Standard Webhooks with a 5-minute timestamp window, GitHub X-Hub-Signature-256, or a hex HMAC-SHA256 header), checked before anything is written; a bad or missing one is 401. The mapped run goes through the same validation, quotas and writes as POST /v1/runs. A repeated delivery id (webhook-id, X-GitHub-Delivery) answers the first delivery's run_id; a GitHub ping answers 200 and starts nothing.",
    auth: { kind: "signature" },
    pathParams: { trigger_id: "The trigger_id POST /v1/triggers answered (its hook_url)." },
    headers: [
      { name: "webhook-id", description: "Standard Webhooks: the delivery id (de-duplicated)." },
      { name: "webhook-timestamp", description: "Standard Webhooks: seconds since the epoch; at most 5 minutes from now." },
      { name: "webhook-signature", description: "Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body>, space-separated." },
      { name: "X-Hub-Signature-256", description: "GitHub: sha256=<hex HMAC-SHA256 of the raw body>." },
      { name: "X-GitHub-Delivery", description: "GitHub: the delivery id (de-duplicated)." },
      { name: "X-GitHub-Event", description: "GitHub: `ping` is answered 200, nothing started." },
    ],
    body: { schema: HookPayload, maxBytes: RUN_BODY_LIMIT.bytes, example: { head_commit: { id: "abc123" }, answers: { q1: "Paris" } } },
    responses: {
      200: { description: "A GitHub ping, verified; nothing started.", schema: HookPing },
      202: { description: "The run started (or, for a repeated delivery id, the run the first delivery started).", schema: SubmittedRun },
    },
    errors: ["idempotency_conflict", "idempotency_in_progress", "quota_exceeded", "not_configured"],
  },
];
