/**
 * Karenina's results export v2.2 as a stream of pieces (pure): the header object without its
 * closing brace, then `,"results":[\n`, the results joined by `,\n`, and `\n]}\n` — the layout of
 * Karenina's own `export_verification_results_json_stream`, so the document is written result by
 * result and never held whole.
 */
import type { ModelConfig } from "../schemas/model-config";
import type { Rubric } from "../schemas/rubric";

export interface KareninaJobFacts {
  run_id: string;
  answering_models: readonly ModelConfig[];
  parsing_models: readonly ModelConfig[];
  global_rubric: Rubric | null;
  /** Results in the export (after filters). */
  total: number;
  /** Of those, results whose verification ran to a verdict (not `error`). */
  successful: number;
  failed: number;
  /** Epoch seconds. */
  start_time: number;
  end_time: number | null;
  is_complete: boolean;
  export_timestamp: string;
  version: string;
}

const modelEntry = (m: ModelConfig) => ({ provider: null, name: m.model_name, temperature: m.temperature ?? null, interface: m.interface });

export function kareninaHeader(f: KareninaJobFacts): string {
  const header = {
    format_version: "2.2",
    metadata: {
      export_timestamp: f.export_timestamp,
      karenina_version: f.version,
      job_id: f.run_id,
      verification_config: { answering_models: f.answering_models.map(modelEntry), parsing_models: f.parsing_models.map(modelEntry) },
      job_summary: {
        total_questions: f.total,
        successful_count: f.successful,
        failed_count: f.failed,
        start_time: f.start_time,
        end_time: f.end_time,
        total_duration: f.end_time === null ? null : f.end_time - f.start_time,
        is_complete: f.is_complete,
      },
    },
    shared_data: { rubric_definition: f.global_rubric },
  };
  return `${JSON.stringify(header).slice(0, -1)},"results":[\n`;
}

export const KARENINA_SEPARATOR = ",\n";
export const KARENINA_FOOTER = "\n]}\n";

/**
 * The end of an export with scenario runs: Karenina writes `,"scenario_results":[\n`, the
 * records (ScenarioResultRecord JSON, src/scenarios) joined by `,\n`, then `\n]}\n`, after the
 * results list; without scenarios the key is absent.
 */
export function kareninaFooter(scenarioRecords: readonly string[]): string {
  if (scenarioRecords.length === 0) return KARENINA_FOOTER;
  return `\n],"scenario_results":[\n${scenarioRecords.join(KARENINA_SEPARATOR)}\n]}\n`;
}

/** Karenina's export_timestamp format: `2026-04-21 12:00:00 UTC`. */
export const exportTimestamp = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;
