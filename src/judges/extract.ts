/**
 * Getting a unit's answer out of a model, with validation-driven retries and a model fallback list.
 *
 * Extractors: structured (default; the port's JSON-schema output, validated by zod), regex
 * (free text, first int / first float), post-hoc (free text, then a second model structures it),
 * token-probability (one token's logprobs over the scale's values: argmax, sample with the
 * injected RNG, or the probability-weighted sum). Text-only units use plain chat.
 * A failed validation or a transient error is retried on the same model: `retries: n` is n
 * attempts per model, as Verdict's `ModelSelectionPolicy.from_name` (verdict/model.py:351,
 * `for _ in range(retries)`); without it a model gets 2 attempts;
 * an `unsupported` / `auth` / `bad_request` answer moves straight to the next model in the list.
 */
import type { ChatRequest, LlmError, LlmResult, LogprobsRequest, Message, ModelPort, StructuredRequest, Usage } from "../llm/port";
import { isRetryable } from "../llm/port";
import type { ExtractorSpec } from "../schemas/judge";
import type { ModelConfig } from "../schemas/model-config";
import { answerShape } from "./prompts";
import type { JudgeNode, JudgePorts } from "./types";

/** The port request plus the stable call-site id a response cache may key on (issue 5). */
export type WithCallSite<R> = R & { call_site?: string };

export type Fields = Record<string, unknown>;
export type Attempt = { ok: true; fields: Fields } | { ok: false; error: LlmError };

/** One call's usage and its price (null: unpriced). */
export type PricedUsage = Usage & { cost_usd: number | null };
type Record_ = (u: Usage) => void;

export interface ExtractResult {
  result: Attempt;
  attempts: number;
  usage: PricedUsage[];
  model?: string;
}

/** Attempts per model when `retries` is not set (Verdict's default is 1; one re-ask is cheap insurance). */
export const DEFAULT_ATTEMPTS = 2;
const FIRST_INT = /-?\d+/;
const FIRST_FLOAT = /-?\d+(?:\.\d+)?/;

export async function extract(
  n: JudgeNode,
  messages: Message[],
  callSite: string,
  ports: JudgePorts,
  rng: () => number,
): Promise<ExtractResult> {
  const usage: PricedUsage[] = [];
  const recorder =
    (m: ModelConfig): Record_ =>
    (u) =>
      usage.push({ ...u, cost_usd: ports.cost ? ports.cost(m, u) : null });
  let attempts = 0;
  let last: LlmError = { kind: "bad_request", message: "no model configured" };
  for (const model of n.models) {
    const port = ports.model(model);
    for (let a = 0; a < (n.unit.retries ?? DEFAULT_ATTEMPTS); a++) {
      attempts++;
      // A retry is its own call site: a response cache must not hand back the answer that just failed.
      const site = a === 0 ? callSite : `${callSite}/retry${a}`;
      const r = await once(n, port, model, messages, site, ports, rng, recorder);
      if (r.ok) return { result: r, attempts, usage, model: model.model_name };
      last = r.error;
      if (!(r.error.kind === "invalid_output" || isRetryable(r.error))) break;
    }
  }
  return { result: { ok: false, error: last }, attempts, usage };
}

async function once(
  n: JudgeNode,
  port: ModelPort,
  model: ModelConfig,
  messages: Message[],
  call_site: string,
  ports: JudgePorts,
  rng: () => number,
  recorder: (m: ModelConfig) => Record_,
): Promise<Attempt> {
  const record = recorder(model);
  const e: ExtractorSpec = n.unit.extractor ?? { type: "structured" };
  const sampling = {
    ...(n.unit.temperature !== undefined ? { temperature: n.unit.temperature } : {}),
    ...(n.unit.max_tokens ? { max_tokens: n.unit.max_tokens } : {}),
  };
  if (n.kind === "conversational" || n.kind === "cot") {
    const r = await port.chat({ messages, ...sampling, call_site } as WithCallSite<ChatRequest>);
    return r.ok ? (record(r.value.usage), { ok: true, fields: { text: r.value.text } }) : r;
  }
  if (e.type === "structured") return structured(n, port, messages, call_site, sampling, record);
  if (e.type === "token-probability") return tokenProbability(n, port, model, messages, call_site, e, rng, record);
  const chat = await port.chat({ messages, ...sampling, call_site } as WithCallSite<ChatRequest>);
  if (!chat.ok) return chat;
  record(chat.value.usage);
  const text = chat.value.text;
  if (e.type === "regex") {
    const m = text.match(e.pattern === "first_int" ? FIRST_INT : FIRST_FLOAT);
    const v = m ? n.scale!.parse(Number(m[0])) : undefined;
    if (v === undefined) return invalid(`no ${e.pattern === "first_int" ? "integer" : "number"} on the scale in the answer`, text);
    return { ok: true, fields: { answer: v, ...(n.unit.explanation ? { explanation: text } : {}) } };
  }
  // post-hoc: a second (cheaper) model turns the free text into the answer shape.
  const second = e.provider ?? model;
  const posthoc: Message[] = [
    {
      role: "system",
      content: "Extract the evaluator's final answer from its text into the requested fields. Do not judge anything yourself.",
    },
    { role: "user", content: `Evaluator's text:\n${text}` },
  ];
  const r = await structured(n, ports.model(second), posthoc, `${call_site}/post-hoc`, {}, recorder(second));
  if (r.ok && n.unit.explanation && typeof r.fields.explanation !== "string") r.fields.explanation = text;
  return r;
}

async function structured(
  n: JudgeNode,
  port: ModelPort,
  messages: Message[],
  call_site: string,
  sampling: object,
  record: Record_,
): Promise<Attempt> {
  const shape = answerShape(n);
  const req: WithCallSite<StructuredRequest<Fields>> = {
    messages,
    schemaName: "judge_answer",
    jsonSchema: shape.jsonSchema,
    schema: shape.schema,
    ...sampling,
    call_site,
  };
  const r = await port.structured(req);
  if (!r.ok) return r;
  record(r.value.usage);
  const fields = { ...r.value.value };
  if (n.scale) fields.answer = n.scale.parse(fields.answer);
  return { ok: true, fields };
}

async function tokenProbability(
  n: JudgeNode,
  port: ModelPort,
  model: ModelConfig,
  messages: Message[],
  call_site: string,
  e: Extract<ExtractorSpec, { type: "token-probability" }>,
  rng: () => number,
  record: Record_,
): Promise<Attempt> {
  const r: LlmResult<{ tokens: { token: string; logprob: number; top: { token: string; logprob: number }[] }[]; usage: Usage }> =
    await port.logprobs({ messages, top_logprobs: e.top_logprobs, max_tokens: 1, call_site } as WithCallSite<LogprobsRequest>);
  if (!r.ok) {
    if (r.error.kind !== "unsupported") return r;
    const message = `the token-probability extractor needs logprobs, and the ${model.interface} adapter for model "${model.model_name}" does not provide them; use an OpenAI or OpenAI-compatible model, or extractor structured`;
    return { ok: false, error: { kind: "unsupported", message } };
  }
  record(r.value.usage);
  const first = r.value.tokens[0];
  const dist = distribution(n, first ? (first.top.length ? first.top : [first]) : []);
  if (dist.length === 0) return invalid("none of the top tokens is a value of the scale", first?.token ?? "");
  const total = dist.reduce((s, d) => s + d.p, 0);
  let answer: unknown;
  // Verdict: sum(token * probability); a boolean's true counts 1, so on a boolean scale this is P(yes).
  if (e.mode === "weighted") answer = dist.reduce((s, d) => s + Number(d.value) * d.p, 0) / total;
  else if (e.mode === "argmax") answer = dist.reduce((best, d) => (d.p > best.p ? d : best)).value;
  else {
    let x = rng() * total;
    answer = dist[dist.length - 1]!.value;
    for (const d of dist) if ((x -= d.p) < 0) return done(d.value);
  }
  return done(answer);
  function done(a: unknown): Attempt {
    return { ok: true, fields: { answer: a, distribution: Object.fromEntries(dist.map((d) => [String(d.value), d.p / total])) } };
  }
}

/** Probability mass per scale value over the top tokens, in scale order (so ties go to the earlier value). */
export function distribution(n: JudgeNode, top: { token: string; logprob: number }[]): { value: string | number | boolean; p: number }[] {
  const mass = new Map<string, number>();
  for (const t of top) {
    const v = n.scale!.parse(t.token.trim());
    if (v !== undefined) mass.set(String(v), (mass.get(String(v)) ?? 0) + Math.exp(t.logprob));
  }
  return n.scale!.values.filter((v) => mass.has(String(v))).map((v) => ({ value: v, p: mass.get(String(v))! }));
}

function invalid(message: string, raw: string): Attempt {
  return { ok: false, error: { kind: "invalid_output", message, raw: raw.slice(0, 2000) } };
}
