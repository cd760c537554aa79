/**
 * Karenina's verification-results CSV (pure): the columns and cell rules of
 * `export_verification_results_csv` (karenina/benchmark/verification/stages/helpers/results_exporter.py
 * at 9851a770), one row per result.
 *
 * Rubric columns: every trait scored in the exported results (LLM, regex, callable and metric
 * traits; names longer than 255 characters or holding \n, \r or NUL are skipped, as Karenina does)
 * that the global rubric names gets a `rubric_<trait>` column, sorted; the others share one JSON
 * column, `question_specific_rubrics`, present only when there is at least one.
 *
 * One deliberate difference: Karenina serialises verify_result through a helper that writes "" for
 * any falsy value, so a failed verification (False) reads as empty; here it is `false`.
 */
import { z } from "zod";
import type { ModelIdentity } from "../schemas/model-identity";
import { csvLine, pyCell, pyFloat, pyJson, pySafeJson } from "./py-format";

const HEAD = [
  "question_id",
  "success",
  "error",
  "question_text",
  "raw_llm_response",
  "parsed_gt_response",
  "parsed_llm_response",
  "template_verification_performed",
  "verify_result",
  "verify_granular_result",
  "rubric_evaluation_performed",
  "keywords",
];
const TAIL = [
  "answering_model",
  "parsing_model",
  "replicate",
  "execution_time",
  "timestamp",
  "answering_system_prompt",
  "parsing_system_prompt",
  "run_name",
  "export_timestamp",
  "karenina_version",
  "job_id",
  "embedding_check_performed",
  "embedding_similarity_score",
  "embedding_override_applied",
  "embedding_model_used",
  "answering_mcp_servers",
  "deep_judgment_mode",
  "deep_judgment_performed",
  "extracted_excerpts",
  "attribute_reasoning",
  "deep_judgment_stages_completed",
  "deep_judgment_model_calls",
  "deep_judgment_excerpt_retry_count",
  "attributes_without_excerpts",
  "deep_judgment_search_enabled",
  "hallucination_risk_assessment",
  "deep_judgment_rubric_performed",
  "extracted_rubric_excerpts",
  "rubric_trait_reasoning",
  "deep_judgment_rubric_scores",
  "standard_rubric_scores",
  "trait_metadata",
  "traits_without_valid_excerpts",
  "rubric_hallucination_risk_assessment",
  "total_deep_judgment_model_calls",
  "total_traits_evaluated",
  "total_excerpt_retries",
  "metric_trait_confusion_lists",
  "metric_trait_metrics",
  "usage_metadata",
  "agent_metrics",
];

/** The score maps whose traits get columns, in Karenina's merge order (later wins). */
export const CSV_TRAIT_MAPS = ["llm_trait_scores", "regex_trait_scores", "callable_trait_scores", "metric_trait_scores"] as const;

export const validTraitName = (name: string) => name.length > 0 && name.length <= 255 && !/[\n\r\0]/.test(name);

/** The columns of a CSV export, fixed at its first step and kept in its D1 row (`layout_json`) for the next steps. */
export const CsvLayout = z.strictObject({
  globalTraits: z.array(z.string()),
  questionTraits: z.array(z.string()),
  /** Written in every row, as Karenina does. */
  exportTimestamp: z.string(),
  version: z.string(),
  jobId: z.string(),
});
export type CsvLayout = z.infer<typeof CsvLayout>;

/** Splits the traits seen in the results into global columns and the question-specific JSON column. */
export function csvLayout(
  seenTraits: Iterable<string>,
  globalRubricTraits: readonly string[],
  meta: Omit<CsvLayout, "globalTraits" | "questionTraits">,
): CsvLayout {
  const seen = [...new Set(seenTraits)].filter(validTraitName);
  const global = new Set(globalRubricTraits);
  return { ...meta, globalTraits: seen.filter((t) => global.has(t)).sort(), questionTraits: seen.filter((t) => !global.has(t)).sort() };
}

export function csvHeader(layout: CsvLayout): string {
  return csvLine([
    ...HEAD,
    ...layout.globalTraits.map((t) => `rubric_${t}`),
    ...(layout.questionTraits.length ? ["question_specific_rubrics"] : []),
    ...TAIL,
  ]);
}

type Obj = Record<string, any>;

/** Karenina's ModelIdentity.display_string. */
export function displayString(m: ModelIdentity): string {
  let base = `${m.interface}:${m.model_name}`;
  if (m.config_id) base = `${base} (${m.config_id})`;
  return m.tools?.length ? `${base} +[${m.tools.join(", ")}]` : base;
}

/** One row; `result` is a VerificationResult with or without its trace (the CSV has no trace column). */
export function csvRow(result: object, layout: CsvLayout): string {
  const r = result as Obj;
  const m: Obj = r.metadata;
  const t: Obj | null = r.template ?? null;
  const rub: Obj | null = r.rubric ?? null;
  const dj: Obj | null = r.deep_judgment ?? null;
  const djr: Obj | null = r.deep_judgment_rubric ?? null;
  const merged: Obj = {};
  for (const map of CSV_TRAIT_MAPS) Object.assign(merged, rub?.[map] ?? {});
  const questionSpecific: Obj = {};
  for (const trait of layout.questionTraits) if (trait in merged) questionSpecific[trait] = merged[trait];
  return csvLine([
    m.question_id,
    pyCell(m.failure === null),
    m.failure?.reason ?? "",
    m.question_text,
    t?.raw_llm_response ?? "",
    pySafeJson(t?.parsed_gt_response),
    pySafeJson(t?.parsed_llm_response),
    pyCell(t?.template_verification_performed ?? false),
    t?.verify_result === null || t?.verify_result === undefined ? "" : pyJson(t.verify_result),
    pySafeJson(t?.verify_granular_result),
    pyCell(rub?.rubric_evaluation_performed ?? false),
    pySafeJson(m.keywords),
    ...layout.globalTraits.map((trait) => (rub ? pyCell(merged[trait] ?? "") : "")),
    ...(layout.questionTraits.length ? [pySafeJson(questionSpecific) || "{}"] : []),
    displayString(m.answering),
    displayString(m.parsing),
    m.replicate ? String(m.replicate) : "",
    pyFloat(m.execution_time),
    m.timestamp,
    m.answering_system_prompt ?? "",
    m.parsing_system_prompt ?? "",
    m.run_name ?? "",
    layout.exportTimestamp,
    layout.version,
    layout.jobId,
    pyCell(t?.embedding_check_performed ?? false),
    t?.embedding_similarity_score ? pyFloat(t.embedding_similarity_score) : "",
    pyCell(t?.embedding_override_applied ?? false),
    t?.embedding_model_used ?? "",
    pySafeJson(t?.answering_mcp_servers),
    pyCell(dj?.deep_judgment_mode ?? null),
    pyCell(dj?.deep_judgment_performed ?? false),
    pySafeJson(dj?.extracted_excerpts),
    pySafeJson(dj?.attribute_reasoning),
    pySafeJson(dj?.deep_judgment_stages_completed),
    pyCell(dj?.deep_judgment_model_calls ?? 0),
    pyCell(dj?.deep_judgment_excerpt_retry_count ?? 0),
    pySafeJson(dj?.attributes_without_excerpts),
    pyCell(dj?.deep_judgment_search_enabled ?? false),
    pySafeJson(dj?.hallucination_risk_assessment),
    pyCell(djr?.deep_judgment_rubric_performed ?? false),
    pySafeJson(djr?.extracted_rubric_excerpts),
    pySafeJson(djr?.rubric_trait_reasoning),
    pySafeJson(djr?.deep_judgment_rubric_scores),
    pySafeJson(djr?.standard_rubric_scores),
    pySafeJson(djr?.trait_metadata),
    pySafeJson(djr?.traits_without_valid_excerpts),
    pySafeJson(djr?.rubric_hallucination_risk_assessment),
    pyCell(djr?.total_deep_judgment_model_calls ?? 0),
    pyCell(djr?.total_traits_evaluated ?? 0),
    pyCell(djr?.total_excerpt_retries ?? 0),
    pySafeJson(rub?.metric_trait_confusion_lists),
    pySafeJson(rub?.metric_trait_scores),
    pySafeJson(t?.usage_metadata),
    pySafeJson(t?.agent_metrics),
  ]);
}
