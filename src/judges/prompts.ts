/**
 * The messages each unit sends, and the answer shape it asks for. Versioned constants; a unit's
 * own prompt comes first, then whatever it did not place itself: the sample (input, response,
 * reference), the upstream units' answers and explanations (a debate as a transcript), the options,
 * and the scale instruction.
 */
import { untrusted } from "../lib/untrusted";
import { z } from "zod";
import type { Message } from "../llm/port";
import type { Scale } from "./scales";
import { fieldText, refsOf, render, type RenderContext } from "./template";
import type { JudgeNode, UnitOutput } from "./types";

export const PROMPTS_VERSION = "judges-v1";

const SYSTEM: Record<string, string> = {
  judge: "You are a careful, impartial evaluator of AI responses. Judge only what is asked.",
  verify:
    "You verify another evaluator's judgment. Check its explanation against the response; if it is wrong, give the answer you find correct.",
  compare: "You compare candidate responses impartially. The order in which they are shown says nothing about their quality.",
  conversational: "You take part in a structured debate about the quality of an AI response. Be specific and brief.",
  cot: "You reason step by step about the quality of an AI response.",
};

export const DEFAULT_PROMPT: Record<string, string> = {
  judge: "Evaluate the response.",
  categorical: "Classify the response.",
  verify: "Check whether the previous judgment and its explanation are correct, then give the correct answer.",
  pairwise: "Which option is better?",
  "best-of-k": "Which option is best?",
  ranker: "Rank the options from best to worst.",
  "debate-for": "Argue why this response is good.",
  "debate-against": "Argue why this response is bad.",
  conversational: "Continue the discussion.",
  cot: "Think step by step about how good the response is. Write your reasoning only; do not give a score.",
};

export const NO_EXPLANATION = "Do not explain your answer; respond with the value only.";
export const letters = (k: number) => Array.from({ length: k }, (_, i) => String.fromCharCode(65 + i));

export interface PromptContext extends RenderContext {
  /** Conversational ancestors' outputs, in turn order. */
  transcript: UnitOutput[];
}

export function buildMessages(n: JudgeNode, ctx: PromptContext, optionOrder?: number[], tokenOnly = false): Message[] {
  const u = n.unit;
  const prompt = u.prompt ?? DEFAULT_PROMPT[n.kind === "conversational" ? u.type : n.kind] ?? DEFAULT_PROMPT.judge!;
  // Whatever the prompt places itself (in either brace style) is not added again below.
  const placed = new Set<string>(refsOf(prompt).refs.map((r) => r.kind));
  const uses = (kind: string) => placed.has(kind);
  const parts = [render(prompt, ctx, n)];
  const s = ctx.sample;
  const comparing = n.kind === "pairwise" || n.kind === "best-of-k" || n.kind === "ranker";
  if (s.input && !uses("input")) parts.push(`Input:\n${s.input}`);
  if (!comparing && !uses("output")) parts.push(`Response:\n${untrusted(s.output)}`);
  if (!comparing && s.reference !== undefined && !uses("reference")) parts.push(`Reference:\n${s.reference}`);
  if (ctx.transcript.length) parts.push(`Debate so far:\n${ctx.transcript.map((o) => `[${o.name}] ${o.text ?? ""}`).join("\n\n")}`);
  if (!uses("previous")) {
    const prior = ctx.previous.filter((o) => o.value !== null || (o.text && !ctx.transcript.includes(o)));
    for (const o of prior) parts.push(priorText(o));
  }
  if (n.options) {
    const order = optionOrder ?? n.options.map((_, i) => i);
    const L = letters(order.length);
    parts.push(order.map((oi, i) => `Option ${L[i]}:\n${render(n.options![oi]!, ctx, n)}`).join("\n\n"));
    parts.push(
      n.kind === "ranker"
        ? `Answer with the option letters (${L.join(", ")}) ordered from best to worst.`
        : `Answer with the letter of the better option (${L.join(" or ")}).`,
    );
  }
  if (n.scale) parts.push(n.scale.prompt());
  if (n.role) parts.push(`Your role: ${n.role}.`);
  if (tokenOnly) parts.push(NO_EXPLANATION);
  else if (u.explanation) parts.push("First explain your reasoning, then give your answer.");
  const system = n.kind === "verify" ? SYSTEM.verify : comparing ? SYSTEM.compare : (SYSTEM[n.kind] ?? SYSTEM.judge);
  return [
    { role: "system", content: system! },
    { role: "user", content: parts.join("\n\n") },
  ];
}

function priorText(o: UnitOutput): string {
  const bits = [`Previous judgment (${o.name}):`];
  if (o.answer !== undefined) bits.push(`answer ${fieldText(o, "answer")}`);
  if (o.chosen !== undefined) bits.push(`chose ${o.chosen}`);
  if (o.ranking) bits.push(`ranking ${o.ranking.join(" > ")}`);
  if (o.explanation) bits.push(`\nExplanation: ${o.explanation}`);
  if (o.text && o.value === null) bits.push(`\n${o.text}`);
  return bits.join(" ");
}

export interface AnswerShape {
  jsonSchema: Record<string, unknown>;
  schema: z.ZodType<Record<string, unknown>>;
}

/**
 * Shapes already built, by what decides them (whether an explanation is asked, the scale's values
 * and ends, or the options' count): a zod schema costs more to build than to run, and every judge
 * call asked for its unit's anew (~5 % of a /v1/judge request's CPU, bench/judge). Shapes hold no
 * state of a call; a few configs cover nearly every request, and the map stays small.
 */
const shapes = new Map<string, AnswerShape>();
const MAX_SHAPES = 256;

function shapeKey(n: JudgeNode): string {
  const s = n.scale;
  const scale = s ? [s.kind, s.values, s.min ?? null, s.max ?? null, s.endIsWorst] : null;
  return JSON.stringify([Boolean(n.unit.explanation), scale, n.kind === "ranker", n.options?.length ?? null]);
}

/** The structured answer: `explanation` first when asked (reasoning before the score), then the answer. */
export function answerShape(n: JudgeNode): AnswerShape {
  const key = shapeKey(n);
  let shape = shapes.get(key);
  if (!shape) {
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(key, (shape = buildAnswerShape(n)));
  }
  return shape;
}

function buildAnswerShape(n: JudgeNode): AnswerShape {
  const props: Record<string, unknown> = {};
  const shape: Record<string, z.ZodType> = {};
  if (n.unit.explanation) {
    props.explanation = { type: "string" };
    shape.explanation = z.string();
  }
  if (n.scale) {
    const scale: Scale = n.scale;
    props.answer = scale.jsonSchema();
    shape.answer = z.unknown().refine((v) => scale.parse(v) !== undefined, { error: `answer must be on the scale: ${scale.prompt()}` });
  } else if (n.kind === "ranker") {
    const L = letters(n.options!.length);
    props.ranking = { type: "array", items: { type: "string", enum: L }, minItems: L.length, maxItems: L.length };
    shape.ranking = z.array(z.enum(L as [string, ...string[]])).refine((r) => new Set(r).size === L.length && r.length === L.length, {
      error: `ranking must list each of ${L.join(", ")} once`,
    });
  } else if (n.options) {
    const L = letters(n.options.length);
    props.choice = { type: "string", enum: L };
    shape.choice = z.enum(L as [string, ...string[]]);
  }
  return {
    jsonSchema: { type: "object", properties: props, required: Object.keys(props), additionalProperties: false },
    schema: z.object(shape) as unknown as z.ZodType<Record<string, unknown>>,
  };
}
