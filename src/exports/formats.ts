/**
 * The three export formats as writers of text pieces (pure): a start, one piece per result and an
 * end, so the streamed exports and the R2 builder write the same bytes result by result.
 */
import { type CsvLayout, csvHeader, csvRow } from "./karenina-csv";
import { KARENINA_FOOTER, KARENINA_SEPARATOR, type KareninaJobFacts, kareninaFooter, kareninaHeader } from "./karenina-document";
import { toKareninaResult } from "./karenina-result";
import type { ExportFormat } from "../schemas/api";

export interface ExportWriter {
  start: string;
  /** `index`: the result's position in the whole export (0-based), not within a page. */
  result(result: object, index: number): string;
  /** The same piece from the result's JSON text, when the format can skip parsing it. */
  resultJson?(json: string, index: number): string;
  end: string;
  /** The end when the run had scenarios (Karenina's `scenario_results`; the records' JSON). */
  endWithScenarios?(records: readonly string[]): string;
}

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  karenina: "application/json",
  csv: "text/csv; charset=utf-8",
  ndjson: "application/x-ndjson",
};

export const EXTENSIONS: Record<ExportFormat, string> = { karenina: "json", csv: "csv", ndjson: "ndjson" };

export function ndjsonWriter(): ExportWriter {
  return { start: "", result: (r) => `${JSON.stringify(r)}\n`, resultJson: (json) => `${json}\n`, end: "" };
}

export function csvWriter(layout: CsvLayout): ExportWriter {
  return { start: csvHeader(layout), result: (r) => csvRow(r, layout), end: "" };
}

export function kareninaWriter(facts: KareninaJobFacts): ExportWriter {
  return {
    start: kareninaHeader(facts),
    result: (r, i) => `${i > 0 ? KARENINA_SEPARATOR : ""}${JSON.stringify(toKareninaResult(r))}`,
    end: KARENINA_FOOTER,
    endWithScenarios: kareninaFooter,
  };
}
