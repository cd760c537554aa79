/**
 * The frames of GET /v1/runs/:id/events (Server-Sent Events, src/coordinator/run-events.ts): one
 * schema per event's `data`, and `RunEvent`, a frame as {event, id?, data}, which /openapi.json
 * documents as the stream's item schema and the contract test checks every frame it received against.
 */
import { z } from "zod";
import { VerdictName } from "./api";
import { RunStatusName } from "./run-views";

export const RunResultEventData = z.strictObject({
  result_id: z.string(),
  /** Null for results recorded by a coordinator older than this field. */
  question_id: z.string().nullable(),
  answering_model: z.string(),
  parsing_model: z.string(),
  verdict: VerdictName,
});

export const RunProgressEventData = z.strictObject({
  done: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  /**
   * What the run's model calls have cost so far; null once a call of a model without a price was
   * recorded (its cost is unknown, not zero), as GET /v1/runs/:id's usage.total.cost_usd.
   */
  cost_usd: z.number().nonnegative().nullable(),
  /** Seconds to the end at the rate of the last minute; null until there is a rate. */
  eta_s: z.number().int().nonnegative().nullable(),
});

export const RunStatusEventData = z.strictObject({ status: RunStatusName });

export const RunDoneEventData = z.strictObject({ status: RunStatusName, finished_at: z.string().nullable() });

/** One frame. Only `result` frames carry an id (the result's sequence number): Last-Event-ID resumes after it. */
export const RunEvent = z.discriminatedUnion("event", [
  z.strictObject({ event: z.literal("result"), id: z.string().regex(/^\d+$/), data: RunResultEventData }),
  z.strictObject({ event: z.literal("progress"), data: RunProgressEventData }),
  z.strictObject({ event: z.literal("status"), data: RunStatusEventData }),
  z.strictObject({ event: z.literal("done"), data: RunDoneEventData }),
]);
export type RunEvent = z.infer<typeof RunEvent>;
export type RunResultEventData = z.infer<typeof RunResultEventData>;
export type RunProgressEventData = z.infer<typeof RunProgressEventData>;
