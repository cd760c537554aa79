/** What /v1/webhook-endpoints answers (src/http/webhooks.ts types its bodies by these). */
import { z } from "zod";
import { EVENT_TYPES } from "./webhooks";

export const EndpointView = z.strictObject({
  endpoint_id: z.string(),
  url: z.string(),
  description: z.string(),
  event_types: z.array(z.enum(EVENT_TYPES)),
  all_runs: z.boolean(),
  enabled: z.boolean(),
  disabled_reason: z.string().nullable(),
  /** During a secret rotation the previous secret signs beside the new one until then. */
  previous_secret_expires_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** Created or rotated: `secret` (whsec_…) is shown here only, never again. */
export const EndpointWithSecret = EndpointView.extend({ secret: z.string() });
export const EndpointList = z.strictObject({ endpoints: z.array(EndpointView) });
export const DeletedEndpoint = z.strictObject({ endpoint_id: z.string(), deleted: z.literal(true) });

export const DeliveryPage = z.strictObject({
  deliveries: z.array(
    z.strictObject({
      delivery_id: z.string(),
      event_id: z.string(),
      event_type: z.string(),
      /** null for a test event (POST …/:id/test). */
      run_id: z.string().nullable(),
      status: z.enum(["pending", "delivered", "failed"]),
      attempts: z.number().int(),
      next_attempt_at: z.string().nullable(),
      last_status_code: z.number().int().nullable(),
      last_error: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
      attempt_log: z.array(
        z.strictObject({
          attempt: z.number().int(),
          at: z.string(),
          webhook_timestamp: z.number(),
          status_code: z.number().int().nullable(),
          error: z.string().nullable(),
        }),
      ),
    }),
  ),
  next_cursor: z.string().nullable(),
});

export const RetriedDelivery = z.strictObject({ delivery_id: z.string(), status: z.literal("pending") });

/** POST …/:id/test: the test event, and how its first attempt went (a failed one is retried on the schedule). */
export const TestEventSent = z.strictObject({
  event_id: z.string(),
  delivery_id: z.string(),
  status: z.enum(["pending", "delivered", "failed"]),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
});
