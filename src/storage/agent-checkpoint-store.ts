/**
 * An answering agent's checkpoint in R2 (src/core-shared/agent-loop.ts saves after every model turn
 * and tool result): a redelivered job carries on from it and repeats only calls whose result was
 * not saved. Parsed on read; an object that is not a loop state counts as none (start over). On
 * a job's first delivery nothing can be saved yet, so R2 is not asked.
 */
import { z } from "zod";
import type { AgentCheckpointPort, LoopState } from "../core-shared/agent-types";
import { r2Keys, type RunRef } from "./r2-keys";

const ToolCall = z.object({ id: z.string(), name: z.string(), arguments: z.unknown() });
const Saved = z.object({
  messages: z.array(
    z.object({
      role: z.enum(["system", "user", "assistant", "tool"]),
      content: z.string(),
      tool_calls: z.array(ToolCall).optional(),
      tool_call_id: z.string().optional(),
    }),
  ),
  model_calls: z.number().int().min(0),
  tool_calls: z.number().int().min(0),
  failed_tool_ids: z.array(z.string()),
  usage: z.object({ input_tokens: z.number(), output_tokens: z.number(), total_tokens: z.number(), model: z.string() }).nullable(),
  elapsed_ms: z.number().min(0),
});

export function r2AgentCheckpoint(blobs: R2Bucket, run: RunRef, jobId: string, attempts: number): AgentCheckpointPort {
  const key = r2Keys.agentCheckpoint(run, jobId);
  return {
    async load(): Promise<LoopState | null> {
      if (attempts <= 1) return null;
      const obj = await blobs.get(key);
      if (!obj) return null;
      const parsed = Saved.safeParse(await obj.json().catch(() => null));
      return parsed.success ? (parsed.data as LoopState) : null;
    },
    async save(state: LoopState): Promise<void> {
      await blobs.put(key, JSON.stringify(state));
    },
  };
}
