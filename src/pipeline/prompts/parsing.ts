/**
 * Template-parsing prompts (Karenina's `parsing` task, langchain adapter flavour: the schema is
 * also written into the user message so servers that ignore structured output still see it).
 * Versioned: a change of wording is a new version, so results can say which prompt judged them.
 */
import { untrusted } from "../../lib/untrusted";
import type { Message } from "../../llm/port";

export const PARSING_PROMPT_VERSION = "karenina-parsing-1";

const SYSTEM = `You are an evaluator that extracts structured information from responses.

You will receive:
1. A response to parse (either a final answer or a complete trace)
2. A JSON schema with descriptive fields indicating what information to extract

# Extraction Protocol

## 1. Focus on the Final Answer
- Your primary extraction source is the **final answer** given to the user
- Extract information from this answer according to the schema field descriptions

## 2. Extract According to Schema
- Each field description specifies WHAT to extract from the answer and HOW
- Follow field descriptions precisely
- Use \`null\` for information not present in the final answer (if field allows null)

## 3. Validate Structure
- Return valid JSON matching the provided schema exactly
- Use correct data types for each field

# Critical Rules

**Answer-First**: Extract primarily from the final answer content.

**Description Adherence**: Each field's description is authoritative for what and how to extract.

**Fidelity**: Extract only what's actually stated. Don't infer or add information not present.

**JSON Only**: Return ONLY the JSON object - no explanations, no markdown fences, no surrounding text.`;

export interface ParsingPromptInput {
  question: string;
  response: string;
  jsonSchema: Record<string, unknown>;
  /** field name → extraction hint; rendered only when non-empty. */
  extractionHints: Record<string, string>;
  systemPrompt?: string;
  /** `prompt_config.parsing`, appended to the system text. */
  instructions?: string;
  /** Deep judgment's per-attribute reasoning, given to the final parse as extra evidence. */
  reasoning?: Record<string, string>;
}

export function buildParsingMessages(input: ParsingPromptInput): Message[] {
  const hints = Object.entries(input.extractionHints);
  const hintSection = hints.length ? `\n\n# Field Extraction Guidance\n\n${hints.map(([f, h]) => `- **${f}**: ${h}`).join("\n")}` : "";
  const system = [input.systemPrompt, SYSTEM + hintSection, input.instructions].filter(Boolean).join("\n\n");
  const reasoning = Object.entries(input.reasoning ?? {});
  const reasoningSection = reasoning.length
    ? `\n\n**DEEP JUDGMENT REASONING (per attribute, from verbatim excerpts of the response):**\n${reasoning.map(([a, r]) => `- ${a}: ${r}`).join("\n")}`
    : "";
  const user = `Parse the following response and extract structured information.

**ORIGINAL QUESTION:**
${input.question}

**RESPONSE TO PARSE:**
${untrusted(input.response)}${reasoningSection}

**JSON SCHEMA (your response MUST conform to this):**
\`\`\`json
${JSON.stringify(input.jsonSchema, null, 2)}
\`\`\`

**PARSING NOTES:**
- Extract values for each field based on its description in the schema
- If information for a field is not present, use null (if field allows null) or your best inference
- Return ONLY the JSON object - no surrounding text

**YOUR JSON RESPONSE:**`;
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}
