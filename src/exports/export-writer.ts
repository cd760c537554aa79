/**
 * The writer for one export of one run (edge): the CSV's rubric columns from the filtered rows
 * (one D1 query) and the global rubric, the Karenina header's job summary from the run row and a
 * count. The builder keeps the CSV layout on its row, so every step writes the same columns.
 */
import { EDGEVAL_VERSION } from "../coordinator/manifest";
import { traitNames } from "../schemas/rubric";
import { countResults, distinctTraitNames, type ResultFilter } from "../storage/results-repo";
import type { RunSpec } from "../storage/run-spec";
import type { RunRecord } from "../storage/runs-repo";
import type { ExportFormat } from "../schemas/api";
import { type ExportWriter, csvWriter, kareninaWriter, ndjsonWriter } from "./formats";
import { CSV_TRAIT_MAPS, type CsvLayout, csvLayout } from "./karenina-csv";
import { exportTimestamp } from "./karenina-document";

/** What the exports write as Karenina's `karenina_version`: who wrote the file. */
export const EXPORT_VERSION = `edgeval ${EDGEVAL_VERSION}`;

const TERMINAL = new Set(["completed", "partial", "failed", "cancelled", "budget_exceeded"]);

export async function computeCsvLayout(
  db: D1Database,
  run: RunRecord,
  spec: RunSpec,
  filter: ResultFilter,
  now: number,
): Promise<CsvLayout> {
  const seen = await distinctTraitNames(db, run, CSV_TRAIT_MAPS, filter);
  const global = spec.settings.global_rubric ? traitNames(spec.settings.global_rubric).map((t) => t.name) : [];
  return csvLayout(seen, global, { exportTimestamp: exportTimestamp(now), version: EXPORT_VERSION, jobId: run.run_id });
}

export async function exportWriter(
  db: D1Database,
  run: RunRecord,
  spec: RunSpec,
  format: ExportFormat,
  filter: ResultFilter,
  now: number,
  layout?: CsvLayout,
): Promise<ExportWriter> {
  if (format === "ndjson") return ndjsonWriter();
  if (format === "csv") return csvWriter(layout ?? (await computeCsvLayout(db, run, spec, filter, now)));
  const counts = await countResults(db, run, filter);
  const seconds = (iso: string | null) => (iso === null ? null : Date.parse(iso) / 1000);
  return kareninaWriter({
    run_id: run.run_id,
    answering_models: spec.answering_models,
    parsing_models: spec.parsing_models,
    global_rubric: spec.settings.global_rubric ?? null,
    total: counts.total,
    successful: counts.total - counts.errored,
    failed: counts.errored,
    start_time: seconds(run.created_at)!,
    end_time: seconds(run.finished_at),
    is_complete: TERMINAL.has(run.status),
    export_timestamp: exportTimestamp(now),
    version: EXPORT_VERSION,
  });
}
