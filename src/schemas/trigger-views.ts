/** What /v1/triggers and /v1/hooks answer (src/http/triggers.ts, hooks.ts type their bodies by these). */
import { z } from "zod";
import { TriggerMapping, TriggerSigning } from "./triggers";

export const TriggerView = z.strictObject({
  trigger_id: z.string(),
  name: z.string(),
  benchmark_id: z.string(),
  preset_id: z.string().optional(),
  config: z.record(z.string(), z.unknown()),
  webhook_endpoint_ids: z.array(z.string()).optional(),
  mapping: TriggerMapping,
  signing: TriggerSigning,
  /** Where the sender POSTs its deliveries: absolute, on EDGEVAL_PUBLIC_ORIGIN or else the origin this request came in on. */
  hook_url: z.string(),
  /** After a rotation: deliveries signed with the replaced secret verify until then (null: no rotation). */
  previous_secret_expires_at: z.string().nullable(),
  created_at: z.string(),
});

/** Created or rotated: `secret` (whsec_…) is shown here only, never again. */
export const TriggerWithSecret = TriggerView.extend({ secret: z.string() });
export const TriggerList = z.strictObject({ triggers: z.array(TriggerView), next_cursor: z.string().nullable() });
export const DeletedTrigger = z.strictObject({ trigger_id: z.string(), deleted: z.literal(true) });
/** A GitHub `ping` (sent when a hook is created): verified, nothing started. */
export const HookPing = z.strictObject({ ping: z.literal(true), trigger_id: z.string() });
/** A hook delivery's body: any JSON the sender signs; the trigger's mapping reads it by JSON Pointer. */
export const HookPayload = z.unknown();
