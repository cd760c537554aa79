// Anthropic wire format: POST /v1/messages (also /messages).
import { defaultFromSchema } from "./schema-default.mjs";
import { defaultAnswer, estimateTokens, MALFORMED_TEXT } from "./text.mjs";

function blocksText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b) => {
      if (typeof b === "string") return b;
      if (b?.type === "text") return b.text ?? "";
      if (b?.type === "tool_result") return blocksText(b.content);
      return "";
    })
    .filter(Boolean)
    .join("\n");
}

export function describeMessages(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const parts = [blocksText(body.system), ...messages.map((m) => blocksText(m?.content))];
  const text = parts.filter(Boolean).join("\n");
  const lastUser = blocksText([...messages].reverse().find((m) => m?.role === "user")?.content);
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const forcedTool = body.tool_choice?.type === "tool" ? String(body.tool_choice.name ?? "") : undefined;
  const kind = forcedTool !== undefined ? "structured" : tools.length > 0 ? "tools" : "chat";
  const schema = forcedTool !== undefined ? tools.find((t) => t?.name === forcedTool)?.input_schema : undefined;
  const lastContent = messages.at(-1)?.content;
  const results = Array.isArray(lastContent) ? lastContent.filter((b) => b?.type === "tool_result") : [];
  const lastToolResult = results.length ? blocksText(results.at(-1).content) : undefined;
  return { endpoint: "anthropic.messages", model: String(body.model ?? ""), kind, text, lastUser, forcedTool, schema, lastToolResult };
}

const REFUSAL_TEXT = "I can't help with that request.";

const textBlock = (text) => ({ type: "text", text, citations: null });
const toolUse = (id, name, input) => ({ type: "tool_use", id, name, input, caller: { type: "direct" } });

/** @param {ReturnType<typeof describeMessages>} call @param {Record<string, any> | null} reply */
export function message(call, reply, seq) {
  const content = [];
  if (reply?.fault === "malformed") {
    content.push(textBlock(MALFORMED_TEXT));
  } else if (reply?.fault === "refusal") {
    content.push(textBlock(REFUSAL_TEXT));
  } else if (reply?.fault === "truncated") {
    // Cut off at max_tokens: half the text (a forced tool's input never arrives whole).
    const full = reply.text ?? JSON.stringify(reply.json ?? defaultFromSchema(call.schema ?? { type: "object" }));
    content.push(textBlock(full.slice(0, Math.max(1, Math.floor(full.length / 2)))));
  } else if (reply?.tool_calls) {
    if (reply.text) content.push(textBlock(reply.text));
    reply.tool_calls.forEach((c, i) => {
      const input = typeof c.arguments === "string" ? safeParse(c.arguments) : (c.arguments ?? {});
      content.push(toolUse(`toolu_fake_${seq}_${i}`, c.name, input));
    });
  } else if (reply?.text !== undefined) {
    // Even for a forced tool: a model that ignores the tool and answers in prose.
    content.push(textBlock(reply.text));
  } else if (call.kind === "structured") {
    const input = reply?.json !== undefined ? reply.json : defaultFromSchema(call.schema ?? { type: "object" });
    content.push(toolUse(`toolu_fake_${seq}_0`, call.forcedTool, input));
  } else if (reply?.json !== undefined) {
    content.push(textBlock(JSON.stringify(reply.json)));
  } else {
    content.push(textBlock(defaultAnswer(call.lastUser)));
  }
  const hasToolUse = content.some((b) => b.type === "tool_use");
  const outputTokens = estimateTokens(JSON.stringify(content.map((b) => b.text ?? b.input)));
  return {
    id: `msg_fake_${seq}`,
    type: "message",
    role: "assistant",
    // The name the provider reports; a rule may report another (a dated snapshot of an alias).
    model: reply?.model ?? call.model,
    content,
    stop_reason:
      reply?.fault === "refusal" ? "refusal" : reply?.fault === "truncated" ? "max_tokens" : hasToolUse ? "tool_use" : "end_turn",
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: {
      input_tokens: estimateTokens(call.text),
      output_tokens: outputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: null,
      server_tool_use: null,
      service_tier: "standard",
    },
  };
}

function safeParse(s) {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

const ERROR_TYPES = {
  400: "invalid_request_error",
  401: "authentication_error",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

export function errorBody(status, message) {
  return { type: "error", error: { type: ERROR_TYPES[status] ?? "api_error", message } };
}
