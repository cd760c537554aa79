/**
 * Stage 7b — agentic parsing (Karenina's AgenticParseTemplate / DynamicParseTemplate), in place
 * of the plain parse when `agentic_parsing` is on:
 *
 * - trigger "always": an investigation agent (the shared tool loop over the question's R2
 *   workspace, read-only) looks for the values the answerer reported, then one structured call
 *   extracts the schema from its report. An extraction that fails for a reason other than a
 *   transient one is recovered from the last JSON object of the report when that validates
 *   (`agentic_extraction_recovery: "local_json"`, the error kept in `agentic_extraction_error`).
 * - trigger "dynamic": first one call decides from the final message alone (sufficient → its
 *   answer is the parse, `dynamic_parse_decision: "direct"`); insufficient, malformed, a final
 *   message that cannot be extracted, or a transient failure of the decision escalate to the
 *   investigation with the decision's reasoning (`"escalated"`).
 *
 * `agentic_judge_context` decides what the agent sees: the workspace, the answering trace, or
 * both; with `agentic_parsing_materialize_trace` the trace is written into the workspace for the
 * agent to grep instead of inlined, and deleted afterwards unless `agentic_parsing_persist_trace`.
 */
import { isRetryable } from "../../llm/port";
import { z } from "zod";
import { buildJudgeSchema } from "../../templates";
import { runInvestigation } from "../../rubric/agentic/agent";
import type { WorkspacePort } from "../../rubric/agentic/types";
import { type AgenticParsingSettings, emptyAgenticParse } from "../artifacts";
import { stageErrorFromLlm, truncate } from "../llm-failure";
import { warn } from "../overrides";
import { buildDecisionMessages, buildExtractionMessages, buildInvestigationPrompt } from "../prompts/agentic-parsing";
import { instructionsFor } from "../../core-shared/instructions";
import { extractFinalAiMessage } from "../trace";
import { lastJsonObject } from "../../lib/json-extract";
import type { PipelineInput, PipelinePorts, PipelineState, StagePatch } from "../types";
import { seedWorkspace, traceFilePath } from "./agentic-rubric-evaluation";

const decisionJsonSchema = (answer: Record<string, unknown>) => ({
  type: "object",
  properties: { reasoning: { type: "string" }, sufficient: { type: "boolean" }, answer: { anyOf: [answer, { type: "null" }] } },
  required: ["reasoning", "sufficient", "answer"],
  additionalProperties: false,
});

export async function agenticParse(
  state: PipelineState,
  input: PipelineInput,
  ports: PipelinePorts,
  cfg: AgenticParsingSettings,
): Promise<StagePatch> {
  const { jsonSchema, schema } = buildJudgeSchema(input.question.template!);
  const instructions = instructionsFor(input.settings.prompt_config, "agentic_parsing");
  const record = emptyAgenticParse();
  let usage = state.usage;
  let warnings = state.warnings;
  let screening: string | null = null;

  if (cfg.trigger === "dynamic") {
    record.dynamic_parsing_performed = true;
    const answer = state.answer!;
    const final = answer.is_trace ? extractFinalAiMessage(answer.trace_messages) : { ok: true as const, text: answer.raw_llm_response };
    if (!final.ok) screening = `Failed to extract final AI message: ${final.error}`;
    else {
      const res = await ports.judge.structured({
        messages: buildDecisionMessages({ question: input.question.question, response: final.text, jsonSchema, instructions }),
        schemaName: "ParseDecision",
        jsonSchema: decisionJsonSchema(jsonSchema),
        schema: DECISION,
        call_site: "parse_template/dynamic_decision",
      });
      if (!res.ok && !isRetryable(res.error))
        return { error: stageErrorFromLlm("parse_template", res.error, "dynamic parsing decision failed") };
      if (!res.ok) {
        screening = `Dynamic parsing decision failed with a transient error (${res.error.kind}); escalating to agentic parsing.`;
        warnings = warn(ports, warnings, "dynamic_parse_decision_failed", screening);
        record.dynamic_decision_reasoning = screening;
      } else {
        usage = { ...usage, dynamic_parsing_decision: res.value.usage };
        const d = res.value.value;
        record.dynamic_decision_reasoning = d.reasoning;
        const direct = d.sufficient ? schema.safeParse(d.answer) : null;
        if (direct?.success) {
          record.dynamic_parse_decision = "direct";
          return { parsed: direct.data as Record<string, unknown>, parse_performed: true, usage, warnings, agentic_parse: record };
        }
        screening = d.reasoning;
      }
    }
    record.dynamic_parse_decision = "escalated";
  }

  // Investigation over the workspace and/or the trace.
  const ws: WorkspacePort | null = cfg.judge_context === "trace_only" ? null : (ports.workspace ?? null);
  if (ports.workspace) warnings = await seedWorkspace(ports.workspace, input, ports, warnings);
  const trace = state.answer!.raw_llm_response;
  let traceFile: string | null = null;
  let traceShown: { inline: string } | { file: string } | null = null;
  if (cfg.judge_context !== "workspace_only") {
    if (cfg.materialize_trace && ports.workspace) {
      const path = traceFilePath(input).replace(".karenina/traces/trace_", ".karenina/traces/agentic_parse_");
      const w = await ports.workspace.write(path, trace);
      if (w.ok) traceFile = path;
      else
        warnings = warn(
          ports,
          warnings,
          "agentic_trace_write_failed",
          `agentic_parsing_materialize_trace: could not write the trace (${w.error}); shown inline`,
        );
    }
    traceShown = traceFile ? { file: traceFile } : { inline: trace };
  }
  const prompt = buildInvestigationPrompt({
    question: input.question.question,
    jsonSchema,
    screening,
    trace: traceShown,
    partial: state.answer!.response_timeout_partial === true,
    workspaceLabel: ws?.label ?? null,
    instructions,
  });
  // A materialized trace must be readable even in trace_only mode: the agent then gets the workspace tools.
  const tools = ws ?? (traceFile ? ports.workspace! : null);
  let inv: Awaited<ReturnType<typeof runInvestigation>>;
  try {
    inv = await runInvestigation(ports.judge, {
      ...prompt,
      workspace: tools,
      max_turns: cfg.max_turns,
      timeout_ms: cfg.timeout_s * 1000,
      now: () => ports.clock.now(),
      call_site: "parse_template/agentic_investigation",
    });
  } finally {
    if (traceFile && !cfg.persist_trace) {
      const d = await ports.workspace!.delete(traceFile);
      if (!d.ok) ports.log?.warn("agentic_trace_delete_failed", { error: d.error });
    }
  }
  if (inv.usage) usage = { ...usage, agentic_parsing_investigation: inv.usage };
  if (!inv.ok) {
    const err = inv.error;
    const error =
      err.kind === "agent"
        ? {
            category: "parsing" as const,
            stage: "parse_template" as const,
            reason: truncate(`Agentic investigation failed: ${err.message}`),
          }
        : stageErrorFromLlm("parse_template", err, "agentic investigation failed");
    return { error, usage, warnings, agentic_parse: record };
  }
  record.investigation_trace = inv.trace;
  record.agentic_parsing_performed = true;

  // Extraction from the report.
  const res = await ports.judge.structured({
    messages: buildExtractionMessages({ question: input.question.question, report: inv.trace, jsonSchema, instructions }),
    schemaName: "Answer",
    jsonSchema,
    schema,
    call_site: "parse_template/agentic_extraction",
  });
  if (res.ok) {
    usage = { ...usage, agentic_parsing_extraction: res.value.usage };
    return { parsed: res.value.value as Record<string, unknown>, parse_performed: true, usage, warnings, agentic_parse: record };
  }
  if (isRetryable(res.error))
    return { error: stageErrorFromLlm("parse_template", res.error, "agentic extraction failed"), usage, warnings, agentic_parse: record };
  record.agentic_extraction_error = truncate(`${res.error.kind}: ${res.error.message}`);
  // Karenina's local JSON recovery: the last object of the report that validates.
  const recovered = lastJsonObject(inv.trace, (value) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? (parsed.data as Record<string, unknown>) : null;
  });
  if (!recovered) {
    return {
      error: stageErrorFromLlm("parse_template", res.error, "agentic extraction failed and no JSON in the report validates"),
      usage,
      warnings,
      agentic_parse: record,
    };
  }
  record.agentic_extraction_recovery = "local_json";
  warnings = warn(
    ports,
    warnings,
    "agentic_extraction_recovered",
    `Agentic extraction recovered locally after parser error: ${record.agentic_extraction_error}`,
  );
  return { parsed: recovered, parse_performed: true, usage, warnings, agentic_parse: record };
}

/** The decision's reply; `answer` is validated against the template's schema separately (malformed → escalate). */
const DECISION = z.object({ reasoning: z.string().catch(""), sufficient: z.boolean(), answer: z.unknown() });
