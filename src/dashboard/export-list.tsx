/**
 * A run's exports as the dashboard lists them (GET /v1/runs/:id/exports's rows): the newest on the run
 * page, all of them paged on the run's exports page, so an export whose page was closed is found again.
 * Each row says its status in words and links the export's status page, and its download once ready.
 */
import { type ExportRecord, exportView, failureView } from "../exports/exports-repo";
import { exportFileName } from "../exports/file-name";
import { EXTENSIONS } from "../exports/formats";
import type { ExportFormat } from "../schemas/api";
import type { RunRecord } from "../storage/runs-repo";
import { DASHBOARD } from "./guard";
import { Layout } from "./layout";
import { exactBytes, humanBytes } from "./sizes";
import { ColumnHeads } from "./ui";

export const FORMAT_NAMES: Record<ExportFormat, string> = { karenina: "Karenina JSON", csv: "CSV", ndjson: "NDJSON" };

/**
 * An export's status in a sentence: building n of N, ready with its size, or failed and why. The size reads
 * "12.3 kB" (sizes.ts), the exact byte count in its `title` (a tooltip; screen readers read it too).
 */
export function ExportStatus(props: { e: ExportRecord }) {
  const { e } = props;
  if (e.status === "ready") {
    return (
      <>
        ready: {e.results_done} {e.results_done === 1 ? "result" : "results"},{" "}
        <span class="size" title={exactBytes(e.bytes)}>
          {humanBytes(e.bytes)}
        </span>
      </>
    );
  }
  if (e.status === "failed") return <>failed: {failureView(e).error}</>;
  return (
    <>
      building: {e.results_done} of {e.results_total} results
    </>
  );
}

/** The name the download is saved under, as its Content-Disposition says (src/exports/file-name.ts). */
export const exportFile = (run: Pick<RunRecord, "run_id" | "run_name">, e: ExportRecord) =>
  exportFileName({ ...run, at: e.created_at, export_id: e.export_id, extension: EXTENSIONS[e.format] }).utf8;

const FILTER_NAMES = {
  answering_model: "answering model",
  parsing_model: "parsing model",
  question_id: "question",
  verdict: "verdict",
  failure_group: "failure group",
} as const;

/** Which results an export holds, in words: "every result", or its filter ("verdict fail, answering model alpha"). */
export function exportFilterText(e: ExportRecord): string {
  const parts = Object.entries(exportView(e).filter).map(([k, v]) => `${FILTER_NAMES[k as keyof typeof FILTER_NAMES]} ${v}`);
  return parts.length ? parts.join(", ") : "every result";
}

export const exportPageUrl = (e: Pick<ExportRecord, "run_id" | "export_id">) => `${DASHBOARD}/runs/${e.run_id}/exports/${e.export_id}`;

/** The exports, newest first; `caption` says which of them these are. */
export function ExportsTable(props: { run: Pick<RunRecord, "run_id" | "run_name">; exports: readonly ExportRecord[]; caption: string }) {
  return (
    <table id="exports">
      <caption>{props.caption}</caption>
      <ColumnHeads names={["Started", "Format", "Results", "Status", "File"]} />
      <tbody>
        {props.exports.map((e) => (
          <tr data-export-id={e.export_id} data-status={e.status}>
            <td>
              <a href={exportPageUrl(e)} aria-label={`${FORMAT_NAMES[e.format]} export started ${e.created_at}`}>
                {e.created_at}
              </a>
            </td>
            <td>{FORMAT_NAMES[e.format]}</td>
            <td>{exportFilterText(e)}</td>
            <td>
              <ExportStatus e={e} />
            </td>
            <td>
              {e.status === "ready" ? (
                <a href={`${exportPageUrl(e)}/download`} download={exportFile(props.run, e)}>
                  Download {exportFile(props.run, e)}
                </a>
              ) : (
                "—"
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** All of a run's exports, a page at a time (`next`: the cursor of the page after, or null). */
export function ExportsPage(props: { tenant: string; run: RunRecord; exports: readonly ExportRecord[]; next: string | null; first: boolean }) {
  const { run } = props;
  const base = `${DASHBOARD}/runs/${run.run_id}/exports`;
  return (
    <Layout title={`Exports of ${run.run_name ?? run.run_id}`} signedIn={{ tenant: props.tenant }}>
      <p>
        <a href={`${DASHBOARD}/runs/${run.run_id}`}>Back to the run</a>
      </p>
      {props.exports.length === 0 ? (
        <p>{props.first ? "No export of this run yet: start one with the Export buttons on the run page." : "No older exports."}</p>
      ) : (
        <ExportsTable run={run} exports={props.exports} caption="Newest first" />
      )}
      {props.next && <a href={`${base}?cursor=${encodeURIComponent(props.next)}`}>Older exports</a>}
    </Layout>
  );
}
