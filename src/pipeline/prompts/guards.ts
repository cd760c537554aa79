/**
 * Pre-parse guard prompts: abstention (Karenina's `abstention_detection` task) and sufficiency
 * (`sufficiency_detection`). The decision procedures are Karenina's: abstention needs a verbatim
 * capability disclaimer AND no committed answer; sufficiency needs a mappable span for every
 * required field. Both ask for reasoning first, then the boolean.
 */
import { untrusted } from "../../lib/untrusted";
import type { Message } from "../../llm/port";
import { withInstructions } from "../../core-shared/instructions";

export const GUARD_PROMPT_VERSION = "karenina-guards-1";

const ABSTENTION_SYSTEM = `<role>
You are a precise abstention detection assistant. Decide whether a model's response contains an explicit declaration that the model is not answering the question. Ground every decision in verbatim text from the response: never quote or paraphrase sentences that are not present.
</role>

<decision_procedure>
Follow these steps in order and stop at the first one that resolves the decision.

Step 1. Find a verbatim capability disclaimer: a literal sentence declaring inability to answer THIS question. It must state one of:
  - inability to act ("I cannot answer", "I won't provide", "I'm unable to provide", "I can't help with that")
  - inability to access information or tools ("I don't have access to", "I cannot retrieve", "I lack real-time access")
  - absence of knowledge ("I don't have information about", "I have no knowledge of", "I cannot find data on")
  - a policy refusal ("this violates my guidelines", "I'm not authorized")
Copy the exact sentence into your reasoning. If there is none, abstention_detected = false; stop.

Step 2. Does the response still commit to an answer? A commitment is an assertion made as the response's own answer: a direct yes or no, a named entity, a number, a classification or a definite claim. Conditionals ("if X, then Y"), lists of resources or steps to consult, and generic background are NOT commitments.
  - A commitment exists: abstention_detected = false (the disclaimer is a caveat on a committed answer); stop.
  - No commitment (only caveats, how-to guidance, background or deflection to other resources): abstention_detected = true; stop.

Step 3. Still ambiguous: abstention_detected = false.
</decision_procedure>

<distinctions>
- Epistemic hedging ("typically", "usually", "likely", "approximately") is NOT a capability disclaimer; a hedged but committed answer is not abstention.
- Caveats attached to a committed answer ("verify this against a current source") are not abstention.
- Educational deflection IS abstention: a disclaimer followed only by background, a method or places to look, however substantive.
- A factual report that a tool or retrieval returned nothing is not a refusal to answer.
</distinctions>

<output_contract>
Return JSON with two fields:
  - reasoning: the verbatim quote found in Step 1 (or a note that none exists), then one sentence on whether the response commits to an answer. Do not invent quotes.
  - abstention_detected: the boolean verdict of the procedure.
</output_contract>`;

const SUFFICIENCY_SYSTEM = `<role>
You are a precise sufficiency classifier. Decide whether a model's response contains enough information to populate every required field of an answer template schema.
</role>

<detection_rule>
The response is sufficient if, and only if, every REQUIRED field of the schema has at least one mappable span of information in the response. Map leniently: hedged, approximate or qualified values count as present. Optional fields and fields with defaults are ignored.
</detection_rule>

<satisfied>
A required field is satisfied by an explicit value or statement that maps to it, a hedged or approximate value ("around 50", "probably X"), a value clearly derivable from nearby content, or a qualified answer that still commits to a value.
</satisfied>

<unsatisfied>
A required field is unsatisfied when nothing in the response plausibly maps to it, when the response says the information is unknown, unavailable or not retrievable, or when the response is too vague to give any candidate value for it.
</unsatisfied>

<required_behavior>
- Walk through each required field in turn, using its description (and the question, when a field is ambiguous) to know what it needs.
- Be lenient: any plausible span satisfies a field.
- Verdict: sufficient iff every required field is satisfied.
- Return JSON: reasoning first (one line per required field), then the boolean "sufficient".
</required_behavior>`;

export function buildAbstentionMessages(question: string, response: string, extra?: string): Message[] {
  return [
    { role: "system", content: withInstructions(ABSTENTION_SYSTEM, extra) },
    {
      role: "user",
      content: `<original_question>\n${question}\n</original_question>\n\n<model_response>\n${untrusted(response)}\n</model_response>\n\nDecide whether the response contains an explicit declaration of non-answering. Return your determination as JSON, with reasoning first and the boolean verdict second.`,
    },
  ];
}

export function buildSufficiencyMessages(question: string, response: string, schema: Record<string, unknown>, extra?: string): Message[] {
  return [
    { role: "system", content: withInstructions(SUFFICIENCY_SYSTEM, extra) },
    {
      role: "user",
      content: `<original_question>\n${question}\n</original_question>\n\n<model_response>\n${untrusted(response)}\n</model_response>\n\n<template_schema>\n${JSON.stringify(schema, null, 2)}\n</template_schema>\n\nDecide whether the response contains sufficient information to populate every required field in the schema. Return your determination as JSON, with reasoning first (walking through each required field) and the boolean verdict second.`,
    },
  ];
}
