/**
 * Prompts for deep judgment of one rubric trait (inventory §5.9): verbatim excerpts, reasoning in
 * Evidence / Interpretation / Conclusion sections that never states a score, and a score taken
 * only from the Conclusion.
 */
import { untrusted } from "../../lib/untrusted";
import type { Message } from "../../llm/port";
import type { Excerpt } from "../../core-shared/evidence";
import { withInstructions } from "../../core-shared/instructions";

export interface DjTrait {
  name: string;
  description: string;
  kind: "boolean" | "score";
  min_score: number;
  max_score: number;
}

const traitBlock = (t: DjTrait) =>
  `Trait: ${t.name}\nCriterion: ${t.description}\n` +
  (t.kind === "boolean" ? "Scale: true / false" : `Scale: integers ${t.min_score} to ${t.max_score}`);

export function excerptMessages(question: string, response: string, t: DjTrait, max: number, instructions?: string): Message[] {
  const system = `You collect evidence for judging one quality trait of a model's response.

Quote passages of the response that bear on the trait, positive or negative:
- Quotes must be VERBATIM copies of the response text (only whitespace may differ). Never paraphrase, merge or invent.
- Quote sentence-level spans, at most ${max} of them, no near-duplicates, never the entire response.
- Give each a confidence: "high", "medium" or "low". Include weak evidence as "low" rather than returning nothing.

Return ONLY a JSON object {"excerpts": [{"text": "...", "confidence": "high|medium|low"}]}.`;
  return [
    { role: "system", content: withInstructions(system, instructions) },
    {
      role: "user",
      content: `<question>\n${question}\n</question>\n\n<trait>\n${traitBlock(t)}\n</trait>\n\n<response>\n${untrusted(response)}\n</response>`,
    },
  ];
}

export function excerptFeedback(rejected: string[], threshold: number): Message {
  const list = rejected.length ? rejected.map((r) => `- "${r}"`).join("\n") : "(you returned no quotes)";
  return {
    role: "user",
    content: `These quotes were not found in the response (similarity below ${threshold.toFixed(2)}):\n${list}\n\nQuote the response exactly, copying its words character for character, and return the JSON again.`,
  };
}

export function reasoningMessages(
  question: string,
  response: string,
  t: DjTrait,
  excerpts: Excerpt[] | null,
  instructions?: string,
): Message[] {
  const system = `You assess one quality trait of a model's response and explain your assessment.

Write three labelled sections:
Evidence: what the response says that bears on the trait${excerpts ? " (use the quoted excerpts)" : ""}.
Interpretation: how that evidence meets or misses the criterion; say "balanced" explicitly when it is.
Conclusion: ONE sentence stating how well the response meets the criterion.

Never output a score, number or true/false verdict: another step derives the score from your Conclusion.`;
  const evidence = excerpts
    ? `\n\n<excerpts>\n${excerpts.length ? excerpts.map((e, i) => `${i + 1}. "${e.text}" (confidence: ${e.confidence}${e.hallucination_risk ? `, hallucination risk: ${e.hallucination_risk}` : ""})`).join("\n") : "(no verbatim excerpt could be found in the response)"}\n</excerpts>`
    : "";
  return [
    { role: "system", content: withInstructions(system, instructions) },
    {
      role: "user",
      content: `<question>\n${question}\n</question>\n\n<trait>\n${traitBlock(t)}\n</trait>${evidence}\n\n<response>\n${untrusted(response)}\n</response>`,
    },
  ];
}

/** Per-integer labels so the judge does not drift to the middle of the scale. */
export function integerScoreLabels(min: number, max: number): string {
  const span = max - min;
  return Array.from({ length: span + 1 }, (_, i) => {
    const v = min + i;
    const at = span === 0 ? 1 : i / span;
    const label =
      at === 0
        ? "does not meet the criterion at all"
        : at === 1
          ? "fully meets the criterion"
          : at < 0.5
            ? "mostly misses the criterion"
            : at === 0.5
              ? "balanced: meets and misses it equally"
              : "mostly meets the criterion";
    return `${v}: ${label}`;
  }).join("\n");
}

export function scoreMessages(t: DjTrait, reasoning: string): Message[] {
  const scale =
    t.kind === "boolean"
      ? 'Return {"score": true} if the Conclusion says the criterion is met, {"score": false} otherwise.'
      : `Return {"score": <integer>} on this scale:\n${integerScoreLabels(t.min_score, t.max_score)}\nDo not default to the middle of the scale.`;
  return [
    {
      role: "system",
      content: `You turn an assessment's Conclusion into a score. Use ONLY the Conclusion section.\n\n${scale}\n\nReturn ONLY the JSON object.`,
    },
    { role: "user", content: `<trait>\n${traitBlock(t)}\n</trait>\n\n<assessment>\n${reasoning}\n</assessment>` },
  ];
}

/** The Conclusion section of a reasoning text (the whole text when it has none). */
export function conclusionOf(reasoning: string): string {
  const m = /conclusion\s*[:\-]\s*([\s\S]*)$/i.exec(reasoning);
  return (m ? m[1]! : reasoning).trim();
}
