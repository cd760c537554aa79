/**
 * Rubric judge prompts (Karenina's prompts/rubric/*, inventory §5.5–5.7, §5.11). The batch
 * boolean/score prompt follows Karenina's text closely: the recorded call in
 * karenina-data/llm_fixture_rubric_batch_*.json was made with it.
 */
import { untrusted } from "../lib/untrusted";
import type { Message } from "../llm/port";
import { withInstructions } from "../core-shared/instructions";
import type { LLMRubricTrait, MetricRubricTrait } from "../schemas/rubric";

export interface PromptContext {
  question: string;
  answer: string;
  /** Present only when the traits of this call see the reference answer. */
  reference?: string;
  instructions?: string;
}

const JSON_ONLY = `**RESPONSE FORMAT:**
You will receive a JSON Schema specifying the exact output structure. Your response MUST conform to this schema.
Return ONLY a JSON object - no explanations, no markdown, no surrounding text.

**WHAT NOT TO DO:**
- Do NOT wrap JSON in markdown code blocks (no \`\`\`)
- Do NOT add explanatory text before or after the JSON`;

const BATCH_SYSTEM = `You are a rigorous rubric evaluator. For each trait listed, decide carefully whether the answer satisfies the trait's criteria.

**TRAIT REQUIREMENTS:**
1. **Exact Trait Names**: Use the EXACT trait names provided; case-sensitive matching is required.
2. **Boolean Traits**: Use \`true\` or \`false\` (lowercase, no quotes around the value).
3. **Score Traits**: Use integers within the specified range. Scores outside the valid range will be clamped.
4. **Missing Traits**: Any trait not included will be recorded as \`null\` (evaluation failure).

**EVALUATION GUIDELINES:**
- Read each trait's criteria as written; do not infer requirements that are not stated.
- Ground every judgment in evidence visible in the answer text. If a claim is not visible, do not credit it.
- Consider both supporting and contradicting evidence before concluding.
- If a trait's criteria are ambiguous, state the interpretation you used and apply it consistently.
- Be consistent: similar answers should receive similar scores.
- Score honestly. Do not lean toward a particular value when uncertain; the criteria themselves should resolve the call.

${JSON_ONLY}`;

export function scoreRange(t: LLMRubricTrait): [number, number] {
  // `??`, not Karenina's `or 1`: a minimum of 0 is a real minimum.
  return [t.min_score ?? 1, t.max_score ?? 5];
}

function contextBlocks(c: PromptContext): string {
  const ref = c.reference ? `**REFERENCE ANSWER:**\n${c.reference}\n\n` : "";
  return `**QUESTION:**\n${c.question}\n\n${ref}**ANSWER TO EVALUATE:**\n${untrusted(c.answer)}`;
}

function schemaBlock(schema: Record<string, unknown>, example: unknown): string {
  return `**JSON SCHEMA (your response MUST conform to this):**\n\`\`\`json\n${JSON.stringify(schema, null, 2)}\n\`\`\`\n\n**REQUIRED OUTPUT FORMAT:**\nReturn a JSON object matching the schema above.\n\nExample:\n${JSON.stringify(example, null, 2)}\n\n**YOUR JSON RESPONSE:**`;
}

export function batchScoresMessages(traits: LLMRubricTrait[], c: PromptContext, schema: Record<string, unknown>): Message[] {
  const lines = traits.map((t) => {
    if (t.kind === "boolean") return `- **${t.name}** (boolean): ${t.description ?? ""}\n  → Return \`true\` or \`false\``;
    const [lo, hi] = scoreRange(t);
    return `- **${t.name}** (score ${lo}-${hi}): ${t.description ?? ""}\n  → Return integer from ${lo} to ${hi}`;
  });
  const example = {
    scores: Object.fromEntries(
      traits.map((t) => [t.name, t.kind === "boolean" ? true : Math.round((scoreRange(t)[0] + scoreRange(t)[1]) / 2)]),
    ),
  };
  const user = `Evaluate the following answer against these traits:\n\n**TRAITS TO EVALUATE:**\n${lines.join("\n")}\n\n${contextBlocks(c)}\n\n${schemaBlock(schema, example)}`;
  return [
    { role: "system", content: withInstructions(BATCH_SYSTEM, c.instructions) },
    { role: "user", content: user },
  ];
}

export function singleTraitMessages(t: LLMRubricTrait, c: PromptContext, schema: Record<string, unknown>): Message[] {
  let system: string;
  let example: unknown;
  if (t.kind === "boolean") {
    system = `You are a rigorous evaluator. Decide whether the answer meets the criteria of the trait "${t.name}". Return true when the criteria are met, false otherwise.`;
    example = { result: true };
  } else {
    const [lo, hi] = scoreRange(t);
    system = `You are a rigorous evaluator. Score the answer on the trait "${t.name}" with an integer from ${lo} to ${hi}: ${lo} = poor, ${Math.round((lo + hi) / 2)} = average, ${hi} = excellent. Scores outside the range will be clamped.`;
    example = { score: Math.round((lo + hi) / 2) };
  }
  const user = `${contextBlocks(c)}\n\n**TRAIT:** ${t.name}\n**CRITERIA:** ${t.description ?? ""}\n\n${schemaBlock(schema, example)}`;
  return [
    {
      role: "system",
      content: withInstructions(`${system}\nGround the judgment in evidence visible in the answer.\n\n${JSON_ONLY}`, c.instructions),
    },
    { role: "user", content: user },
  ];
}

const LITERAL_SYSTEM = `You classify answers into categories. For each trait, choose exactly one class using the EXACT class name given. Include every trait. Do not invent categories; when several fit, pick the dominant class or the one that best captures the answer.

${JSON_ONLY}`;

function classList(t: LLMRubricTrait): string {
  return Object.entries(t.classes ?? {})
    .map(([name, desc]) => `    - ${name}: ${desc}`)
    .join("\n");
}

export function literalMessages(traits: LLMRubricTrait[], c: PromptContext, schema: Record<string, unknown>, single: boolean): Message[] {
  const lines = traits.map((t) => `- **${t.name}**: ${t.description ?? ""}\n  Classes:\n${classList(t)}`);
  const first = (t: LLMRubricTrait) => Object.keys(t.classes ?? {})[0] ?? "";
  const example = single
    ? { classification: first(traits[0]!) }
    : { classifications: traits.map((t) => ({ trait_name: t.name, class_name: first(t) })) };
  const user = `Classify the following answer for ${single ? "this trait" : "each trait"}:\n\n**TRAITS:**\n${lines.join("\n")}\n\n${contextBlocks(c)}\n\n${schemaBlock(schema, example)}`;
  return [
    { role: "system", content: withInstructions(LITERAL_SYSTEM, c.instructions) },
    { role: "user", content: user },
  ];
}

export function templateTraitMessages(t: LLMRubricTrait, c: PromptContext, schema: Record<string, unknown>): Message[] {
  const system = `You fill in a structured evaluation of an answer. Populate every field of the schema, grounded in the answer; when the answer gives no evidence for a field, use the most conservative value.\n\n${JSON_ONLY}`;
  const user = `**EVALUATION:** ${t.name}: ${t.description ?? ""}\n\n${contextBlocks(c)}\n\n**JSON SCHEMA (your response MUST conform to this):**\n\`\`\`json\n${JSON.stringify(schema, null, 2)}\n\`\`\`\n\n**YOUR JSON RESPONSE:**`;
  return [
    { role: "system", content: withInstructions(system, c.instructions) },
    { role: "user", content: user },
  ];
}

const METRIC_SYSTEM = `You are a confusion-matrix analyst. Sort the content of an answer against instructions.
- tp and fp entries must be quotes (short terms) from the answer; fn and tn entries name the instruction content.
- Accept synonyms and close variants, case-insensitively; partial matches count ("lung cancer" satisfies "mention cancer").
- Use short terms, not sentences. Be inclusive when unsure. No duplicates.

${JSON_ONLY}`;

export function metricMessages(t: MetricRubricTrait, c: PromptContext): Message[] {
  const tp = t.tp_instructions.map((s, i) => `${i + 1}. ${s}`).join("\n");
  const body =
    t.evaluation_mode === "full_matrix"
      ? `**SHOULD BE PRESENT (TP instructions):**\n${tp}\n\n**SHOULD NOT BE PRESENT (TN instructions):**\n${t.tn_instructions.map((s, i) => `${i + 1}. ${s}`).join("\n")}\n\ntp: answer content matching a TP instruction; fn: TP instructions the answer misses; fp: answer content matching a TN instruction; tn: TN instructions the answer correctly leaves out.`
      : `**SHOULD BE PRESENT (TP instructions):**\n${tp}\n\ntp: answer content matching an instruction; fn: instructions the answer misses; fp: terms of the same category that look like answers but are wrong (not filler); tn: leave empty.`;
  return [
    { role: "system", content: withInstructions(METRIC_SYSTEM, c.instructions) },
    {
      role: "user",
      content: `**TRAIT:** ${t.name}: ${t.description ?? ""}\n\n${body}\n\n${contextBlocks(c)}\n\nReturn {"tp": [...], "fn": [...], "fp": [...], "tn": [...]}.`,
    },
  ];
}

export function presenceMessages(concepts: { name: string; text: string }[], response: string): Message[] {
  const system = `You are a concept presence detector. A concept is PRESENT when the response engages with it substantively (discusses, argues, informs, takes a position); a passing mention does not count. For a concept with several aspects, any aspect counts. When unsure, err toward PRESENT. Judge each concept independently.

${JSON_ONLY}`;
  const list = concepts.map((c) => `- **${c.name}**: ${c.text}`).join("\n");
  return [
    { role: "system", content: system },
    {
      role: "user",
      content: `**Concepts to check:**\n${list}\n\n**Response to analyze:**\n${untrusted(response)}\n\nReturn {"results": [{"trait_name": ..., "present": true|false}, ...]} with every concept.`,
    },
  ];
}
