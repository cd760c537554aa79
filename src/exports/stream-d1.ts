/**
 * An export streamed straight from D1 pages (edge), for formats that need no trace (CSV, NDJSON):
 * each pull reads one page of compact results and enqueues its pieces, so memory holds one page
 * whatever the run's size.
 */
import { pageResultRows, type ResultFilter } from "../storage/results-repo";
import type { ExportWriter } from "./formats";

/** Rows per D1 read: a compact result is a few KB. */
const PAGE = 200;

export function streamFromD1(
  db: D1Database,
  run: { tenant_id: string; run_id: string },
  filter: ResultFilter,
  writer: ExportWriter,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after: string | null = null;
  let index = 0;
  let started = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!started) {
          started = true;
          if (writer.start) controller.enqueue(encoder.encode(writer.start));
        }
        const rows = await pageResultRows<{ result_id: string; compact_json: string }>(
          db,
          "result_id, compact_json",
          run,
          { limit: PAGE, after },
          filter,
        );
        let text = "";
        for (const r of rows) {
          text += writer.resultJson ? writer.resultJson(r.compact_json, index) : writer.result(JSON.parse(r.compact_json) as object, index);
          index++;
        }
        if (text) controller.enqueue(encoder.encode(text));
        if (rows.length < PAGE) {
          if (writer.end) controller.enqueue(encoder.encode(writer.end));
          controller.close();
          return;
        }
        after = rows[rows.length - 1]!.result_id;
      },
    },
    { highWaterMark: 0 },
  );
}
