/**
 * Deep-judgment prompts for templates (Karenina's `dj_template_*` tasks): excerpt extraction,
 * its retry feedback, reasoning from excerpts, and reasoning straight from the response
 * (reasoning_only). The wording follows the recorded Karenina call in
 * reference/karenina-data/llm_fixture_deep_judgment_*.json. `prompt_config.deep_judgment` is
 * appended to each system prompt.
 */
import { untrusted } from "../../lib/untrusted";
import type { Message } from "../../llm/port";
import { withInstructions } from "../../core-shared/instructions";

export interface Attribute {
  name: string;
  description: string;
}

const guidance = (attrs: readonly Attribute[]) => attrs.map((a) => `- ${a.name}: ${a.description}`).join("\n");

function excerptSystem(attrs: readonly Attribute[], max: number): string {
  return `You are an expert excerpt extractor for deep-judgment template parsing. Your role is to find verbatim evidence in responses.

# Task Overview

You will receive:
1. An original question in <original_question> tags
2. A response to analyze in <response_to_analyze> tags

Your task: Extract **verbatim excerpts** from the response that provide evidence for specific attributes.

# Attribute Definitions

For each attribute below, the description indicates what evidence to look for:

${guidance(attrs)}

# Extraction Protocol

For each attribute:
1. **Read the attribute's description** to understand what evidence to look for
2. **Identify excerpts**: Find up to ${max} exact quotes that provide evidence
   - "high" confidence: Direct, explicit statement matching the attribute description
   - "medium" confidence: Implied information or indirect evidence
   - "low" confidence: Weak or ambiguous evidence
3. **If no excerpts exist**: Return ONE entry with empty text and explanation

# Critical Requirements

**Verbatim Only**: Excerpts MUST be exact text spans from the response - copy-paste, no modifications.

**Evidence-Based**: Only extract text that actually provides evidence for the attribute.

**Completeness**: Cover all attributes listed above, even if no excerpts are found.

**JSON Only**: Return ONLY the JSON object - no explanations, no markdown fences.

# Output Format

Return JSON matching this structure exactly:
{
  "attribute_name": [
    {"text": "exact quote from response", "confidence": "low|medium|high"}
  ],
  "attribute_without_excerpts": [
    {"text": "", "confidence": "none", "explanation": "Brief reason (e.g., 'Model refused', 'No explicit info')"}
  ]
}`;
}

export function buildExcerptMessages(
  question: string,
  response: string,
  attrs: readonly Attribute[],
  max: number,
  extra?: string,
): Message[] {
  return [
    { role: "system", content: withInstructions(excerptSystem(attrs, max), extra) },
    {
      role: "user",
      content: `<original_question>\n${question}\n</original_question>\n\n<response_to_analyze>\n${untrusted(response)}\n</response_to_analyze>`,
    },
  ];
}

/** Retry: the failed quotes, and a request to re-extract only those attributes. */
export function excerptRetryFeedback(failed: Record<string, string[]>): Message {
  const lines = Object.entries(failed).map(([attr, quotes]) => `- ${attr}: ${quotes.map((q) => JSON.stringify(q)).join(", ")}`);
  return {
    role: "user",
    content: `These excerpts were NOT found verbatim in the response (fuzzy match below the threshold):\n${lines.join("\n")}\n\nRe-extract excerpts for these attributes only: ${Object.keys(failed).join(", ")}. Copy exact text spans from <response_to_analyze>; if the response has no evidence, return one entry with empty text, confidence "none" and an explanation. Return ONLY the JSON object.`,
  };
}

export function buildReasoningMessages(question: string, excerpts: string, attrs: readonly Attribute[], extra?: string): Message[] {
  const system = `You are an expert reasoning generator for deep-judgment template parsing. Your role is to explain how excerpts inform attribute values.

You will receive an original question in <original_question> tags and extracted excerpts in <extracted_excerpts> tags.

# Attribute Definitions

${guidance(attrs)}

# Reasoning Protocol

For each attribute, write 2-3 sentences on how the excerpts relate to it, what value it should have based on the evidence, and any ambiguity. When an attribute has no excerpts, say why and how that affects it. When an excerpt carries a hallucination risk from external search, factor that risk into your confidence.

Generate reasoning for EVERY attribute. Return ONLY a JSON object mapping each attribute name to its reasoning text - no markdown fences.`;
  return [
    { role: "system", content: withInstructions(system, extra) },
    {
      role: "user",
      content: `<original_question>\n${question}\n</original_question>\n\n<extracted_excerpts>\n${untrusted(excerpts)}\n</extracted_excerpts>`,
    },
  ];
}

export function buildReasoningOnlyMessages(question: string, response: string, attrs: readonly Attribute[], extra?: string): Message[] {
  const system = `You are an expert reasoning generator for deep-judgment template parsing. Reason directly from the response about the value each attribute should take.

# Attribute Definitions

${guidance(attrs)}

For each attribute, write 2-3 sentences on what the response says about it and what value it should have; when the response says nothing, say so.

Generate reasoning for EVERY attribute. Return ONLY a JSON object mapping each attribute name to its reasoning text - no markdown fences.`;
  return [
    { role: "system", content: withInstructions(system, extra) },
    { role: "user", content: `<original_question>\n${question}\n</original_question>\n\n<response>\n${untrusted(response)}\n</response>` },
  ];
}
