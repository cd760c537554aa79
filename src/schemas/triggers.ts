/** Wire shapes of /v1/triggers (src/triggers/README.md). */
import { z } from "zod";
import { WebhookEndpointIds } from "./webhooks";

/** RFC 6901 syntax: "" or "/"-prefixed tokens where "~" is only ever "~0" or "~1" (resolution: src/triggers/pointer.ts). */
export const POINTER_PATTERN = /^(\/([^~/]|~[01])*)*$/;

const Pointer = z.string().max(500).regex(POINTER_PATTERN, { error: 'must be an RFC 6901 JSON Pointer ("" or like "/a/0/b~1c")' });

/** The run's name: fixed, or read from the payload. */
const RunNameMapping = z.union([z.strictObject({ literal: z.string().min(1).max(200) }), z.strictObject({ pointer: Pointer })], {
  error: 'run_name is {"literal": "…"} or {"pointer": "/…"}',
});

/**
 * Answers for the config's manual answering models (all of them, or `model_id`): an object keyed
 * by question id at `pointer`, or an array at `items` whose elements give `id` and `answer`
 * (pointers relative to each element).
 */
const ManualAnswersMapping = z.union(
  [
    z.strictObject({ model_id: z.string().min(1).optional(), pointer: Pointer }),
    z.strictObject({ model_id: z.string().min(1).optional(), items: Pointer, id: Pointer, answer: Pointer }),
  ],
  { error: 'manual_answers is {"pointer"} to an object keyed by question id, or {"items", "id", "answer"} pointers' },
);

export const TriggerMapping = z.strictObject({
  run_name: RunNameMapping.optional(),
  /** A string array: the run grades only these questions of the stored benchmark. */
  question_ids: Pointer.optional(),
  manual_answers: ManualAnswersMapping.optional(),
  /** Replace the config's models; validated exactly as POST /v1/runs validates them. */
  answering_models: Pointer.optional(),
  parsing_models: Pointer.optional(),
});
export type TriggerMapping = z.output<typeof TriggerMapping>;

const HeaderName = z.string().regex(/^[A-Za-z0-9-]{1,100}$/, { error: "must be an HTTP header name (letters, digits, -)" });

export const TriggerSigning = z.discriminatedUnion(
  "scheme",
  [
    z.strictObject({ scheme: z.literal("standard_webhooks") }),
    z.strictObject({ scheme: z.literal("github") }),
    z.strictObject({ scheme: z.literal("hex_header"), header: HeaderName, delivery_id_header: HeaderName.optional() }),
  ],
  { error: "signing.scheme is standard_webhooks, github or hex_header" },
);
export type TriggerSigning = z.output<typeof TriggerSigning>;

export const CreateTriggerRequest = z.strictObject({
  name: z.string().min(1).max(200),
  benchmark_id: z.string().min(1).max(100),
  /** Stored as sent; every delivery re-validates the mapped run body as POST /v1/runs does. */
  /** A stored preset (POST /v1/presets); `config` then overrides its top-level keys. */
  preset_id: z.string().min(1).max(100).optional(),
  config: z.record(z.string(), z.unknown(), { error: "config must be a verification config object" }).default({}),
  webhook_endpoint_ids: WebhookEndpointIds.optional(),
  signing: TriggerSigning,
  mapping: TriggerMapping.default({}),
});
export type CreateTriggerRequest = z.output<typeof CreateTriggerRequest>;
