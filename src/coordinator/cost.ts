/**
 * From a result's usage_metadata to the usage rows the run's coordinator keeps (pure).
 *
 * Counting rules:
 * - A row per (result, stage) for judging stages, keyed `<result_id>|<stage>`; the answer's row is
 *   keyed by the job (`<job_id>|answer_generation`), because one answer is shared by every parsing
 *   model of the job and is paid once. The coordinator inserts rows with ON CONFLICT DO NOTHING,
 *   so recording a result again (redelivery) never counts its tokens or cost twice.
 * - Only calls that produced tokens are billed: usage_metadata holds what successful calls
 *   reported; a 429 or 5xx that returned no completion has no usage and costs nothing.
 * - Answer generation is priced with the answering model; every other stage with the parsing
 *   model, except that a stage whose usage names another model (the embedding model) is priced
 *   by that name first.
 * - A stage served from the response cache (`usage.cached`, set only when every call of the stage
 *   was a hit) keeps its tokens but costs nothing: no provider was paid.
 * - An unpriced model's calls cost null, and so does every total that includes one (`addUsd`):
 *   unknown is never shown as 0.
 */
import type { ModelConfig } from "../schemas/model-config";
import type { VerificationResult } from "../schemas/result";
import { addUsd, costOf, priceFor, type PriceTable } from "../llm/prices";

export interface UsageRow {
  key: string;
  job_id: string;
  answering_id: string;
  /** "" for the answer's row: it belongs to the answering model, whichever judge read it. */
  parsing_id: string;
  stage: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  /** Null when the model has no price. */
  cost_usd: number | null;
}

export const ANSWER_STAGE = "answer_generation";

export function usageRows(
  result: {
    metadata: Pick<VerificationResult["metadata"], "result_id">;
    template?: Pick<NonNullable<VerificationResult["template"]>, "usage_metadata"> | null;
  },
  job: { job_id: string; answering: ModelConfig },
  parsing: ModelConfig,
  prices: PriceTable,
): UsageRow[] {
  const meta = result.template?.usage_metadata ?? null;
  if (!meta) return [];
  const rows: UsageRow[] = [];
  for (const [stage, u] of Object.entries(meta)) {
    if (stage === "total") continue;
    const answer = stage === ANSWER_STAGE;
    const model = answer ? job.answering : parsing;
    const usedName = typeof u.model === "string" && u.model ? u.model : model.model_name;
    const price = priceFor(prices, model.interface, usedName) ?? priceFor(prices, model.interface, model.model_name);
    rows.push({
      key: answer ? `${job.job_id}|${stage}` : `${result.metadata.result_id}|${stage}`,
      job_id: job.job_id,
      answering_id: job.answering.id,
      parsing_id: answer ? "" : parsing.id,
      stage,
      model: `${model.interface}:${usedName}`,
      input_tokens: u.input_tokens,
      output_tokens: u.output_tokens,
      cost_usd: (u as { cached?: boolean }).cached === true ? 0 : costOf(price, u),
    });
  }
  return rows;
}

export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  /** Null when any call counted here has no price. */
  cost_usd: number | null;
}

export interface RunUsage {
  answering: UsageTotals;
  judging: UsageTotals & { per_stage: Record<string, UsageTotals> };
  total: UsageTotals;
}

/** Sums per (answering_id, parsing_id, stage), as the coordinator's GROUP BY returns them. */
export type UsageGroup = {
  answering_id: string;
  parsing_id: string;
  stage: string;
  input_tokens: number;
  output_tokens: number;
  /** Null when a row of the group is unpriced. */
  cost_usd: number | null;
};

const zero = (): UsageTotals => ({ input_tokens: 0, output_tokens: 0, total_tokens: 0, cost_usd: 0 });

function add(t: UsageTotals, g: Pick<UsageGroup, "input_tokens" | "output_tokens" | "cost_usd">): void {
  t.input_tokens += g.input_tokens;
  t.output_tokens += g.output_tokens;
  t.total_tokens += g.input_tokens + g.output_tokens;
  t.cost_usd = addUsd(t.cost_usd, g.cost_usd);
}

/** Run usage from grouped rows; `pick` narrows to one pair (its answers are the answering model's). */
export function runUsage(groups: readonly UsageGroup[], pick?: { answering_id: string; parsing_id: string }): RunUsage {
  const answering = zero();
  const judging = { ...zero(), per_stage: {} as Record<string, UsageTotals> };
  for (const g of groups) {
    if (pick && g.answering_id !== pick.answering_id) continue;
    if (g.stage === ANSWER_STAGE) {
      add(answering, g);
      continue;
    }
    if (pick && g.parsing_id !== pick.parsing_id) continue;
    add(judging, g);
    add((judging.per_stage[g.stage] ??= zero()), g);
  }
  const total = zero();
  add(total, answering);
  add(total, judging);
  for (const t of [answering, judging, total, ...Object.values(judging.per_stage)]) t.cost_usd = roundUsd(t.cost_usd);
  return { answering, judging, total };
}

/** Sums of float prices drift (0.1 + 0.2); a nano-dollar is far below any price step. */
const roundUsd = (usd: number | null): number | null => (usd === null ? null : Math.round(usd * 1e9) / 1e9);

/** Which model a usage row's calls went to (`interface:reported name`), for which pair and stage. */
export type UsageRowModel = { answering_id: string; parsing_id: string; stage: string; model: string };

/** Unpriced models of the run, or of one pair (its answers are the answering model's), sorted. */
export function unpricedModels(rows: readonly UsageRowModel[], pick?: { answering_id: string; parsing_id: string }): string[] {
  const models = new Set<string>();
  for (const r of rows) {
    if (pick && (r.answering_id !== pick.answering_id || (r.stage !== ANSWER_STAGE && r.parsing_id !== pick.parsing_id))) continue;
    models.add(r.model);
  }
  return [...models].sort();
}
