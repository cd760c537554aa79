// OpenAI wire format: POST /v1/chat/completions and /v1/embeddings (also without /v1).
import { DEFAULT_DIMS, embedText, toBase64Float32 } from "./embed.mjs";
import { defaultFromSchema } from "./schema-default.mjs";
import { defaultAnswer, estimateTokens, MALFORMED_TEXT, utf8Bytes } from "./text.mjs";

const contentText = (c) =>
  typeof c === "string"
    ? c
    : Array.isArray(c)
      ? c.map((p) => (typeof p === "string" ? p : typeof p?.text === "string" ? p.text : "")).join("")
      : "";

/** What the rule engine and the reply builder need to know about a chat request. */
export function describeChat(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const text = messages
    .map((m) => contentText(m?.content))
    .filter(Boolean)
    .join("\n");
  const lastUser = contentText([...messages].reverse().find((m) => m?.role === "user")?.content);
  const rf = body.response_format;
  let kind = "chat";
  let schema;
  if (rf?.type === "json_schema") {
    kind = "structured";
    schema = rf.json_schema?.schema ?? {};
  } else if (rf?.type === "json_object") {
    kind = "structured";
  } else if (Array.isArray(body.tools) && body.tools.length > 0) {
    kind = "tools";
  }
  const last = messages.at(-1);
  const lastToolResult = last?.role === "tool" ? contentText(last.content) : undefined;
  return { endpoint: "openai.chat", model: String(body.model ?? ""), kind, text, lastUser, schema, lastToolResult };
}

export function describeEmbeddings(body) {
  const inputs = (Array.isArray(body.input) ? body.input : [body.input]).map((x) => (typeof x === "string" ? x : JSON.stringify(x ?? "")));
  return { endpoint: "openai.embeddings", model: String(body.model ?? ""), kind: "embeddings", text: inputs.join("\n"), inputs };
}

/** @param {ReturnType<typeof describeChat>} call @param {Record<string, any> | null} reply */
export const REFUSAL_TEXT = "I can't help with that request.";

/** The first half of the output, as a provider cut off at max_tokens sends it. */
export const truncated = (text) => text.slice(0, Math.max(1, Math.floor(text.length / 2)));

export function chatCompletion(call, body, reply, seq) {
  let content = null;
  let toolCalls;
  if (reply?.fault === "malformed") {
    content = MALFORMED_TEXT;
  } else if (reply?.fault === "refusal") {
    content = null;
  } else if (reply?.tool_calls) {
    content = reply.text ?? null;
    toolCalls = reply.tool_calls.map((c, i) => ({
      id: `call_fake_${seq}_${i}`,
      type: "function",
      function: {
        name: c.name,
        // a string is sent verbatim (lets a test send arguments that are not JSON)
        arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
      },
    }));
  } else if (reply?.text !== undefined) {
    content = reply.text;
  } else if (reply?.json !== undefined) {
    content = JSON.stringify(reply.json);
  } else if (call.kind === "structured") {
    content = JSON.stringify(call.schema ? defaultFromSchema(call.schema) : {});
  } else {
    content = defaultAnswer(call.lastUser);
  }
  const wantLogprobs = body.logprobs === true && content !== null;
  const completionTokens = estimateTokens(content ?? JSON.stringify(toolCalls ?? []));
  const promptTokens = estimateTokens(call.text);
  return {
    id: `chatcmpl-fake-${seq}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    // The name the provider reports; a rule may report another (a dated snapshot of an alias).
    model: reply?.model ?? call.model,
    system_fingerprint: "fake-llm",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply?.fault === "truncated" && content !== null ? truncated(content) : content,
          refusal: reply?.fault === "refusal" ? REFUSAL_TEXT : null,
          ...(toolCalls ? { tool_calls: toolCalls } : {}),
        },
        logprobs: wantLogprobs ? { content: tokenLogprobs(content, body.top_logprobs), refusal: null } : null,
        finish_reason: toolCalls ? "tool_calls" : reply?.fault === "truncated" ? "length" : "stop",
      },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
}

/** Tokens are whitespace-led words; logprobs are deterministic; top[0] is the chosen token. */
export function tokenLogprobs(content, topN) {
  const n = Math.max(0, Math.min(20, Number.isInteger(topN) ? topN : 0));
  return (content.match(/\s*\S+/g) ?? []).map((token, i) => {
    const logprob = -0.01 * ((i % 5) + 1);
    const top = Array.from({ length: n }, (_, k) =>
      k === 0 ? { token, logprob, bytes: utf8Bytes(token) } : { token: `alt${k}`, logprob: logprob - k, bytes: utf8Bytes(`alt${k}`) },
    );
    return { token, logprob, bytes: utf8Bytes(token), top_logprobs: top };
  });
}

export function embeddingsResponse(call, body) {
  const dims = Number.isInteger(body.dimensions) && body.dimensions > 0 ? Math.min(body.dimensions, 4096) : DEFAULT_DIMS;
  const base64 = body.encoding_format === "base64";
  const data = call.inputs.map((text, index) => {
    const v = embedText(text, dims);
    return { object: "embedding", index, embedding: base64 ? toBase64Float32(v) : v };
  });
  const tokens = estimateTokens(call.text);
  return { object: "list", data, model: call.model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}

const ERROR_TYPES = {
  400: "invalid_request_error",
  401: "invalid_api_key",
  429: "rate_limit_exceeded",
  500: "server_error",
  529: "overloaded",
};

export function errorBody(status, message) {
  const type = ERROR_TYPES[status] ?? "server_error";
  return { error: { message, type, param: null, code: type } };
}
