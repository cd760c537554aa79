/**
 * A run's grouped summary from its D1 result rows (edge): every row is read, page by page, with
 * only the columns the grouping needs (usage, and the rubric for `trait`, are pulled out of the
 * compact JSON by SQLite), priced with the run's own price table, and fed to GroupSummarizer.
 */
import { usageRows } from "../coordinator/cost";
import { priceTable } from "../llm/prices";
import { traitObservations } from "../rubric/aggregate";
import type { GroupBy } from "../schemas/api";
import type { ModelConfig } from "../schemas/model-config";
import type { VerificationResult } from "../schemas/result";
import { pageResultRows } from "../storage/results-repo";
import type { RunSpec } from "../storage/run-spec";
import { GroupSummarizer, type GroupSummary, type SummaryRow } from "./group-summary";

/** Rows per D1 query: each is a few hundred bytes (ids, verdict, usage). */
const PAGE = 1000;

/** A D1 row: the summary's columns, with usage and rubric still JSON text. */
type Row = Omit<SummaryRow, "usage" | "traits"> & { result_id: string; usage: string | null; rubric?: string | null };

export async function runGroupSummaries(
  db: D1Database,
  run: { tenant_id: string; run_id: string },
  spec: RunSpec,
  groupBy: GroupBy,
): Promise<GroupSummary[]> {
  const summarizer = new GroupSummarizer(groupBy, spec.replicate_count);
  const models = (list: readonly ModelConfig[]) => new Map(list.map((m) => [m.id, m]));
  const answering = models(spec.answering_models);
  const parsing = models(spec.parsing_models);
  const prices = priceTable(spec.prices);
  const columns =
    "result_id, question_id, answering_model, parsing_model, replicate, verdict, failure_category, json_extract(compact_json, '$.template.usage_metadata') AS usage" +
    (groupBy === "trait" ? ", json_extract(compact_json, '$.rubric') AS rubric" : "");
  let after: string | null = null;
  for (;;) {
    const rows: Row[] = await pageResultRows<Row>(db, columns, run, { limit: PAGE, after });
    for (const r of rows) {
      const a = answering.get(r.answering_model);
      const p = parsing.get(r.parsing_model);
      const usageMeta = r.usage ? (JSON.parse(r.usage) as NonNullable<VerificationResult["template"]>["usage_metadata"]) : null;
      // The job key only has to be the same for every result of one answer: question, answering model, replicate.
      const job = `${r.question_id}\u0000${r.answering_model}\u0000${r.replicate}`;
      const usage =
        a && p && usageMeta
          ? usageRows(
              { metadata: { result_id: r.result_id }, template: { usage_metadata: usageMeta } },
              { job_id: job, answering: a },
              p,
              prices,
            )
          : [];
      summarizer.add({
        ...r,
        usage,
        traits: r.rubric ? traitObservations({ rubric: JSON.parse(r.rubric) as VerificationResult["rubric"] }) : [],
      });
    }
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]!.result_id;
  }
  return summarizer.summaries();
}
