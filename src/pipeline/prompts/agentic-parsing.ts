/**
 * Prompts of agentic parsing (Karenina's `agentic_parsing_*` tasks, stage 7b): the dynamic
 * decision (can the final message fill the schema by itself?), the investigation agent's brief,
 * and the extraction from its report. `prompt_config.agentic_parsing` is appended to each system
 * text. Graded text (the response, the trace, the investigation report) is marked untrusted.
 */
import { untrusted } from "../../lib/untrusted";
import type { Message } from "../../llm/port";

export const AGENTIC_PARSING_PROMPT_VERSION = "edgeval-agentic-parsing-1";

const schemaBlock = (jsonSchema: Record<string, unknown>) => `\`\`\`json\n${JSON.stringify(jsonSchema, null, 2)}\n\`\`\``;
const withInstructions = (system: string, instructions?: string) => (instructions ? `${system}\n\n${instructions}` : system);

const DECISION_SYSTEM = `You decide whether a response can be parsed as it stands.

You receive a question, the final answer an assistant gave, and a JSON schema of the fields to extract.
If the final answer itself states a value for every field of the schema, it is sufficient: fill the
schema from it. If any field's value is missing from the answer (for instance it only points at a file
or at work done elsewhere), it is insufficient: the values must be looked up by an investigation.

Reply with JSON only: {"reasoning": "<one or two sentences>", "sufficient": true|false, "answer": <the filled schema, or null when insufficient>}.`;

export function buildDecisionMessages(p: {
  question: string;
  response: string;
  jsonSchema: Record<string, unknown>;
  instructions?: string;
}): Message[] {
  return [
    { role: "system", content: withInstructions(DECISION_SYSTEM, p.instructions) },
    {
      role: "user",
      content: `PARSING DECISION\n\nQuestion:\n${p.question}\n\nFinal answer:\n${untrusted(p.response)}\n\nSchema of the fields to extract:\n${schemaBlock(p.jsonSchema)}`,
    },
  ];
}

const INVESTIGATION_SYSTEM = `You are a verification agent. An assistant worked on the question below; find the values it reported
for each field of the schema. You have read-only file tools over its workspace (list_files, read_file, grep).

Look only for artifacts that hold reported results (summaries, reports, result tables, answer files). Check a
file's size before reading it and read only what you need. Do not recompute the task. When the assistant did not
report a value for a field, give null for it; never use 0, false, "" or [] as a stand-in for a missing value.

End with your findings as one JSON object matching this schema:`;

export interface InvestigationPrompt {
  question: string;
  jsonSchema: Record<string, unknown>;
  /** Why the dynamic decision escalated, when it did. */
  screening?: string | null;
  /** The answering trace inline, or where it was written in the workspace (materialized), or neither. */
  trace?: { inline: string } | { file: string } | null;
  /** The answering agent stopped at its time limit: results may show only in its trace or partial files. */
  partial?: boolean;
  workspaceLabel?: string | null;
  instructions?: string;
}

export function buildInvestigationPrompt(p: InvestigationPrompt): { system: string; user: string } {
  const parts = [`Question: ${p.question}`];
  if (p.partial) parts.push("\nThe assistant stopped at its time limit: its results may appear only in partial files or in its trace.");
  if (p.screening) parts.push(`\n--- SCREENING REASONING ---\n${p.screening}\n--- END SCREENING REASONING ---`);
  if (p.trace && "inline" in p.trace) parts.push(`\n--- ANSWERING AGENT TRACE ---\n${untrusted(p.trace.inline)}\n--- END TRACE ---`);
  if (p.trace && "file" in p.trace)
    parts.push(
      `\n--- ANSWERING AGENT TRACE ---\nThe full answering trace is saved in the workspace at: ${p.trace.file}\nUse grep and read_file to examine it.\n--- END TRACE ---`,
    );
  if (p.workspaceLabel) parts.push(`\nWorkspace directory: ${p.workspaceLabel}`);
  return { system: withInstructions(`${INVESTIGATION_SYSTEM}\n${schemaBlock(p.jsonSchema)}`, p.instructions), user: parts.join("\n") };
}

const EXTRACTION_SYSTEM = `You extract structured values from an investigation report.

The report was written by an agent that inspected an assistant's work. Fill every field of the schema with the
value the report says the assistant reported; use null where the report found none. Do not add anything the
report does not state. Return ONLY the JSON object.`;

export function buildExtractionMessages(p: {
  question: string;
  report: string;
  jsonSchema: Record<string, unknown>;
  instructions?: string;
}): Message[] {
  return [
    { role: "system", content: withInstructions(EXTRACTION_SYSTEM, p.instructions) },
    {
      role: "user",
      content: `Question:\n${p.question}\n\nINVESTIGATION REPORT:\n${untrusted(p.report)}\n\nJSON SCHEMA (your response MUST conform to this):\n${schemaBlock(p.jsonSchema)}`,
    },
  ];
}
