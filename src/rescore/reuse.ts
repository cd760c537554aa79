/**
 * What a re-scored child takes from its parent's stored results (pure):
 *   - `answerOf`: the job's answer (text and trace) for new judges to read, no model call;
 *   - `asChildResult`: a parent result as the child's own (its id hashes the child's run id);
 *   - `withNewTraits`: a copied result with the scores of the traits the child adds, evaluated on
 *     the same answer by a rubric-only pipeline; the template section and verdict stay the parent's.
 */
import type { AnswerArtifact } from "../pipeline/types";
import type { ResultRubric, VerificationResult } from "../schemas/result";
import { RUBRIC_LISTS, type Rubric } from "../schemas/rubric";

/** The answer a parent result graded, or null when its answer never came (the answering call failed). */
export function answerOf(result: VerificationResult): AnswerArtifact | null {
  const t = result.template;
  if (!t || result.metadata.failure?.stage === "generate_answer") return null;
  // usage null: the parent paid for the call; the child's results show only what the child spent.
  const answer: AnswerArtifact = { raw_llm_response: t.raw_llm_response, trace_messages: t.trace_messages, usage: null };
  if (t.recursion_limit_reached) answer.recursion_limit_reached = true;
  // An MCP agent's answer is a trace (judges read it as one) with its servers and metrics.
  if (t.answering_mcp_servers) {
    answer.is_trace = true;
    answer.answering_mcp_servers = t.answering_mcp_servers;
    if (t.response_timeout_partial) answer.response_timeout_partial = true;
    if (t.agent_metrics) answer.agent_metrics = t.agent_metrics as AnswerArtifact["agent_metrics"];
  }
  return answer;
}

/** The parent's result under the child's result id, run name and replicate numbering. */
export function asChildResult(
  parent: VerificationResult,
  child: { result_id: string; run_name: string | null; replicate: number | null },
): VerificationResult {
  return { ...parent, metadata: { ...parent.metadata, result_id: child.result_id, run_name: child.run_name, replicate: child.replicate } };
}

type Usage = NonNullable<NonNullable<VerificationResult["template"]>["usage_metadata"]>;

/** Stage usage of both, a stage in both summed (the new trait calls add to the parent's). */
function mergeUsage(a: Usage | null, b: Usage | null): Usage | null {
  if (!a || !b) return a ?? b;
  const out: Usage = { ...a };
  for (const [stage, u] of Object.entries(b)) {
    const had = out[stage];
    out[stage] = had
      ? {
          ...had,
          ...u,
          input_tokens: had.input_tokens + u.input_tokens,
          output_tokens: had.output_tokens + u.output_tokens,
          total_tokens: had.total_tokens + u.total_tokens,
        }
      : u;
  }
  return out;
}

const RECORDS = [
  "llm_trait_scores",
  "llm_trait_labels",
  "regex_trait_scores",
  "callable_trait_scores",
  "metric_trait_scores",
  "metric_trait_confusion_lists",
  "agentic_trait_scores",
  "agentic_trait_investigation_traces",
  "agentic_trait_extraction_metadata",
  "compound_trait_scores",
  "compound_trait_traces",
  "dynamic_rubric_skipped_traits",
  "trait_provenance",
] as const satisfies readonly (keyof ResultRubric)[];

function mergeRubric(a: ResultRubric | null | undefined, b: ResultRubric | null | undefined): ResultRubric | null {
  if (!a || !b) return a ?? b ?? null;
  const out: ResultRubric = {
    ...a,
    rubric_evaluation_performed: a.rubric_evaluation_performed || b.rubric_evaluation_performed,
    rubric_evaluation_strategy: a.rubric_evaluation_strategy ?? b.rubric_evaluation_strategy,
    dynamic_rubric_promoted_traits:
      a.dynamic_rubric_promoted_traits || b.dynamic_rubric_promoted_traits
        ? [...(a.dynamic_rubric_promoted_traits ?? []), ...(b.dynamic_rubric_promoted_traits ?? [])]
        : null,
  };
  for (const k of RECORDS) {
    const x = a[k] as Record<string, unknown> | null;
    const y = b[k] as Record<string, unknown> | null;
    (out as Record<string, unknown>)[k] = x || y ? { ...x, ...y } : null;
  }
  return out;
}

/**
 * `copied` (the parent's result, already the child's) with what `traitsOnly` (the rubric-only
 * pipeline over the same answer, the new traits alone) found: their scores, their usage, their
 * caveats and warnings. A trait whose judge failed scores null, as anywhere: never a verdict change.
 */
export function withNewTraits(copied: VerificationResult, traitsOnly: VerificationResult): VerificationResult {
  const template = copied.template
    ? { ...copied.template, usage_metadata: mergeUsage(copied.template.usage_metadata, traitsOnly.template?.usage_metadata ?? null) }
    : copied.template;
  return {
    ...copied,
    metadata: {
      ...copied.metadata,
      // The result now carries rubric scores beside its template verdict.
      evaluation_mode: copied.metadata.evaluation_mode === "template_only" ? "template_and_rubric" : copied.metadata.evaluation_mode,
      caveats: [...new Set([...copied.metadata.caveats, ...traitsOnly.metadata.caveats])],
      warnings: [...copied.metadata.warnings, ...traitsOnly.metadata.warnings],
    },
    template,
    rubric: mergeRubric(copied.rubric, traitsOnly.rubric),
    deep_judgment_rubric: copied.deep_judgment_rubric ?? traitsOnly.deep_judgment_rubric,
  };
}

/** The global rubric cut down to the traits a re-score adds: what the rubric-only pass evaluates. */
export function onlyTraits(rubric: Rubric | null | undefined, names: readonly string[]): Rubric | null {
  if (!rubric) return null;
  const keep = new Set(names);
  const out = { ...rubric, dynamic: undefined };
  for (const k of RUBRIC_LISTS) (out as Record<string, unknown>)[k] = rubric[k].filter((t) => keep.has(t.name));
  return out;
}
