/** Wire shapes of /v1/webhook-endpoints and the event types (one zod schema per shape). */
import { z } from "zod";

/** The run's end, one per status of the precedence rule (src/coordinator/progress.ts statusOf). */
export const RUN_EVENT_TYPES = ["run.completed", "run.partial", "run.failed", "run.cancelled", "run.budget_exceeded"] as const;
/** A scheduled run whose pass rate dropped significantly against the schedule's previous run (src/schedules/). */
export const SCHEDULE_EVENT_TYPES = ["run.regression"] as const;
/** Every type; `result.created` (one event per recorded result) is opt-in: not in the default filter. */
export const EVENT_TYPES = [...RUN_EVENT_TYPES, ...SCHEDULE_EVENT_TYPES, "result.created"] as const;
export const EventType = z.enum(EVENT_TYPES, { error: `event types are: ${EVENT_TYPES.join(", ")}` });
export type EventType = z.infer<typeof EventType>;

const Url = z
  .url({ protocol: /^https?$/, error: "url must be an absolute http(s) URL" })
  .max(2000, { error: "url must be at most 2000 characters" });
const Description = z.string().max(500, { error: "description must be at most 500 characters" });
const EventTypes = z
  .array(EventType)
  .min(1, { error: "event_types must name at least one event type" })
  .refine((t) => new Set(t).size === t.length, { error: "event_types must not repeat a type" });

export const CreateEndpointRequest = z.strictObject({
  url: Url,
  description: Description.default(""),
  /** Default: every run end event and run.regression (result.created only when named). */
  event_types: EventTypes.default([...RUN_EVENT_TYPES, ...SCHEDULE_EVENT_TYPES]),
  /** true: every run of the tenant; false: only runs naming it in webhook_endpoint_ids. */
  all_runs: z.boolean({ error: "all_runs must be true or false" }).default(true),
  enabled: z.boolean({ error: "enabled must be true or false" }).default(true),
});

export const UpdateEndpointRequest = z
  .strictObject({
    url: Url.optional(),
    description: Description.optional(),
    event_types: EventTypes.optional(),
    all_runs: z.boolean({ error: "all_runs must be true or false" }).optional(),
    enabled: z.boolean({ error: "enabled must be true or false" }).optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { error: "send at least one of url, description, event_types, all_runs, enabled" });

/** How long the old secret keeps signing beside the new one (default 24 h, at most 7 days). */
export const RotateSecretRequest = z.strictObject({
  overlap_seconds: z
    .number()
    .int({ error: "overlap_seconds must be a whole number" })
    .min(0)
    .max(7 * 24 * 3600)
    .default(24 * 3600),
});

/** POST …/:id/test takes no fields: an empty body or `{}` (anything else is a 400, never ignored). */
export const TestEventRequest = z.strictObject({});

/** In POST /v1/runs: endpoints of the caller's tenant that receive this run's events. */
export const WebhookEndpointIds = z
  .array(z.string().min(1).max(100), { error: "webhook_endpoint_ids must be a list of endpoint ids" })
  .max(10, { error: "a run may name at most 10 webhook endpoints" })
  .refine((ids) => new Set(ids).size === ids.length, { error: "webhook_endpoint_ids must not repeat an id" });
