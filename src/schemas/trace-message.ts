/**
 * One message of a recorded answering trace (`manual_answers: {question_id: Message[]}`), in any
 * of the shapes Karenina users have on disk, normalised to the model port's `Message`:
 *
 *  - edgeval / OpenAI style   `{role: system|user|assistant|tool, content, tool_calls?, tool_call_id?}`
 *                             (`tool_calls` as `{id, name, arguments}` or OpenAI's
 *                             `{id, type: "function", function: {name, arguments: "<json>"}}`)
 *  - LangChain dumps          `{type: system|human|ai|tool, content, tool_calls?: [{id, name, args}],
 *                             tool_call_id?, …}` — as Karenina stores traces and fixtures
 *  - Karenina's port messages `{role, content: [blocks]}` with text / thinking / tool_use / tool_result
 *                             blocks (Anthropic-style)
 *
 * Extra keys a dump carries (`id`, `name`, `additional_kwargs`, `response_metadata`, …) are allowed:
 * Karenina compatibility, and they carry nothing edgeval grades. Thinking blocks are dropped, as
 * Karenina's harmonised trace drops them.
 */
import { z } from "zod";
import type { Message, ToolCall } from "./message";

const ROLE_BY_TYPE = { system: "system", human: "user", user: "user", ai: "assistant", assistant: "assistant", tool: "tool" } as const;
const ROLES = ["system", "user", "assistant", "tool"] as const;

const Block = z.looseObject({ type: z.string({ error: "a content block needs a type" }) });
const Content = z.union([z.string(), z.array(Block)], { error: "content is a string or a list of content blocks" });

const RawToolCall = z.union([
  z.looseObject({ id: z.string().optional(), name: z.string(), arguments: z.unknown().optional(), args: z.unknown().optional() }),
  z.looseObject({ id: z.string().optional(), function: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }) }),
]);

const RawMessage = z
  .looseObject({
    role: z.enum(ROLES, { error: 'role is "system", "user", "assistant" or "tool"' }).optional(),
    type: z
      .enum(Object.keys(ROLE_BY_TYPE) as [keyof typeof ROLE_BY_TYPE], { error: 'type is "system", "human", "ai" or "tool"' })
      .optional(),
    content: Content,
    tool_calls: z.array(RawToolCall).nullish(),
    tool_call_id: z.string().nullish(),
  })
  .refine((m) => m.role !== undefined || m.type !== undefined, {
    error: 'a message needs a role ("assistant", …) or a LangChain type ("ai", …)',
  });

export const TraceMessage = RawMessage.transform((m): Message => {
  const role = m.role ?? ROLE_BY_TYPE[m.type!];
  const blocks = typeof m.content === "string" ? [] : m.content;
  const text = typeof m.content === "string" ? m.content : blocks.map(blockText).filter(Boolean).join("\n");
  const toolCalls = [...(m.tool_calls ?? []).map(fromRawCall), ...blocks.filter((b) => b.type === "tool_use").map(fromToolUse)];
  const resultOf = blocks.find((b) => b.type === "tool_result") as { tool_use_id?: unknown } | undefined;
  const toolCallId = m.tool_call_id ?? (typeof resultOf?.tool_use_id === "string" ? resultOf.tool_use_id : undefined);
  return {
    role,
    content: text,
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    ...(toolCallId ? { tool_call_id: toolCallId } : {}),
  };
});

function blockText(block: z.output<typeof Block>): string {
  const b = block as Record<string, unknown>;
  if (b.type === "text" && typeof b.text === "string") return b.text;
  if (b.type === "tool_result") {
    if (typeof b.content === "string") return b.content;
    if (Array.isArray(b.content)) return b.content.map((c) => (c && typeof c === "object" ? blockText(c as never) : "")).join("\n");
  }
  return "";
}

function fromRawCall(call: z.output<typeof RawToolCall>, i: number): ToolCall {
  const fn = (call as { function?: { name: string; arguments?: unknown } }).function;
  if (fn) return { id: call.id ?? `call_${i}`, name: fn.name, arguments: parseArgs(fn.arguments) };
  const c = call as { id?: string; name: string; arguments?: unknown; args?: unknown };
  return { id: c.id ?? `call_${i}`, name: c.name, arguments: parseArgs(c.arguments ?? c.args ?? {}) };
}

function fromToolUse(block: z.output<typeof Block>, i: number): ToolCall {
  const b = block as { id?: unknown; name?: unknown; input?: unknown };
  return {
    id: typeof b.id === "string" ? b.id : `tool_use_${i}`,
    name: typeof b.name === "string" ? b.name : "unknown",
    arguments: b.input ?? {},
  };
}

/** OpenAI sends arguments as a JSON string; keep the string when it is not JSON. */
function parseArgs(args: unknown): unknown {
  if (typeof args !== "string") return args;
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}
