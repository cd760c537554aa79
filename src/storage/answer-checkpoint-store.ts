/**
 * A job's answer checkpoint (src/jobs/answer-step.ts `answerFor`): the generated answer as JSON,
 * saved before the first judge call so a redelivery reuses it instead of calling the answering
 * model again. A row of the run's coordinator holds it (it comes back with the claim); an answer
 * too large for a row is an R2 object. Parsed on read, never cast: a checkpoint that is not an
 * answer is not reused (the answer is generated again) and is logged.
 */
import { z } from "zod";
import type { Same } from "../lib/same-shape";
import type { AnswerArtifact } from "../pipeline/types";
import { PortMessage } from "../schemas/result";
import { r2Keys, type RunRef } from "./r2-keys";

const Usage = z.strictObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number(),
  model: z.string(),
  cached: z.boolean().optional(),
});

const AgentMetrics = z.strictObject({
  iterations: z.number(),
  tool_calls: z.number(),
  tools_used: z.array(z.string()),
  tool_call_counts: z.record(z.string(), z.number()),
  suspect_failed_tool_calls: z.number(),
  suspect_failed_tools: z.array(z.string()),
});

/** The pipeline's AnswerArtifact (src/pipeline/types.ts) as saved. */
export const AnswerCheckpoint = z.strictObject({
  raw_llm_response: z.string(),
  trace_messages: z.array(PortMessage),
  usage: Usage.nullable(),
  is_trace: z.boolean().optional(),
  recursion_limit_reached: z.boolean().optional(),
  response_timeout_partial: z.boolean().optional(),
  agent_metrics: AgentMetrics.optional(),
  answering_mcp_servers: z.array(z.string()).optional(),
});

/** Fails to compile when AnswerArtifact and the schema drift apart (a field the checkpoint would drop or refuse). */
const sameShape: Same<z.output<typeof AnswerCheckpoint>, AnswerArtifact> = true;
void sameShape;

/** The saved answer, or null when `json` is not one. */
export function parseAnswerCheckpoint(json: string): AnswerArtifact | null {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  const parsed = AnswerCheckpoint.safeParse(value);
  return parsed.success ? parsed.data : null;
}

export async function saveAnswerCheckpoint(blobs: R2Bucket, run: RunRef, jobId: string, json: string): Promise<void> {
  await blobs.put(r2Keys.answerCheckpoint(run, jobId), json);
}

/** The checkpoint an earlier delivery put in R2: undefined when there is none, null when it is not an answer. */
export async function loadAnswerCheckpoint(blobs: R2Bucket, run: RunRef, jobId: string): Promise<AnswerArtifact | null | undefined> {
  const obj = await blobs.get(r2Keys.answerCheckpoint(run, jobId));
  return obj ? parseAnswerCheckpoint(await obj.text()) : undefined;
}
