/** D1 `exports` rows (migrations/0014_exports.sql): the builder's state, parsed on read. */
import { z } from "zod";
import { EXPORT_FORMATS, type ExportFormat, VerdictName } from "../schemas/api";
import { FAILURE_GROUP } from "../schemas/result";
import type { ExportFilter, ExportView } from "../schemas/results-out-views";
import { newestFirstPage, type PageAfter } from "../storage/newest-first";
import type { ResultFilter } from "../storage/results-repo";
import { type ExportFailure, exportFailureMessage, exportFailureOf } from "./export-failure";

/** The stored filter (storage/results-repo.ts ResultFilter): what POST …/exports accepted. */
const StoredFilter = z.object({
  answering_model: z.string().optional(),
  parsing_model: z.string().optional(),
  question_id: z.string().optional(),
  verdict: VerdictName.optional(),
  failure_categories: z.array(z.string()).optional(),
}) satisfies z.ZodType<ResultFilter>;

const Part = z.object({ partNumber: z.number().int(), etag: z.string() });
export type UploadedPart = z.output<typeof Part>;
/** Bytes a step wrote to its own object because they did not fill a part yet. */
const Segment = z.object({ step: z.number().int(), size: z.number().int() });
export type Segment = z.output<typeof Segment>;

const ExportRow = z.object({
  tenant_id: z.string(),
  export_id: z.string(),
  run_id: z.string(),
  format: z.enum(EXPORT_FORMATS),
  filter_json: z.string(),
  status: z.enum(["building", "ready", "failed"]),
  r2_key: z.string(),
  upload_id: z.string().nullable(),
  parts_json: z.string(),
  segments_json: z.string(),
  step: z.number().int(),
  after_result_id: z.string().nullable(),
  results_done: z.number().int(),
  results_total: z.number().int(),
  bytes: z.number().int(),
  layout_json: z.string().nullable(),
  error: z.string().nullable(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
});
export type ExportRecord = z.output<typeof ExportRow> & { filter: ResultFilter; parts: UploadedPart[]; segments: Segment[] };

export async function insertExport(
  db: D1Database,
  row: {
    tenant_id: string;
    export_id: string;
    run_id: string;
    format: ExportFormat;
    filter: ResultFilter;
    r2_key: string;
    results_total: number;
    created_at: string;
  },
): Promise<void> {
  await db
    .prepare(
      "INSERT INTO exports (tenant_id, export_id, run_id, format, filter_json, status, r2_key, results_total, created_at) VALUES (?, ?, ?, ?, ?, 'building', ?, ?, ?)",
    )
    .bind(row.tenant_id, row.export_id, row.run_id, row.format, JSON.stringify(row.filter), row.r2_key, row.results_total, row.created_at)
    .run();
}

export async function getExport(db: D1Database, tenantId: string, exportId: string): Promise<ExportRecord | null> {
  const raw = await db.prepare("SELECT * FROM exports WHERE tenant_id = ? AND export_id = ?").bind(tenantId, exportId).first();
  return raw ? fromRow(raw) : null;
}

/** A page of one run's exports, newest first (index exports_by_run), after the last of the page before. */
export async function listRunExports(
  db: D1Database,
  run: { tenant_id: string; run_id: string },
  limit: number,
  after: PageAfter,
): Promise<ExportRecord[]> {
  const owner = { tenant_id: run.tenant_id, run_id: run.run_id };
  return (await newestFirstPage<unknown>(db, { table: "exports", idColumn: "export_id", owner }, limit, after)).map(fromRow);
}

function fromRow(raw: unknown): ExportRecord {
  const row = ExportRow.parse(raw);
  return {
    ...row,
    filter: StoredFilter.parse(JSON.parse(row.filter_json)),
    parts: z.array(Part).parse(JSON.parse(row.parts_json)),
    segments: z.array(Segment).parse(JSON.parse(row.segments_json)),
  };
}

/** One builder step's progress, written only if the row is still at `fromStep` (false: another delivery got there first). */
export async function advanceExport(
  db: D1Database,
  e: ExportRecord,
  fromStep: number,
  next: {
    upload_id: string | null;
    parts: UploadedPart[];
    segments: Segment[];
    after_result_id: string | null;
    results_done: number;
    bytes: number;
    layout_json: string | null;
  },
): Promise<boolean> {
  const r = await db
    .prepare(
      "UPDATE exports SET step = ?, upload_id = ?, parts_json = ?, segments_json = ?, after_result_id = ?, results_done = ?, bytes = ?, layout_json = ? WHERE tenant_id = ? AND export_id = ? AND step = ? AND status = 'building'",
    )
    .bind(
      fromStep + 1,
      next.upload_id,
      JSON.stringify(next.parts),
      JSON.stringify(next.segments),
      next.after_result_id,
      next.results_done,
      next.bytes,
      next.layout_json,
      e.tenant_id,
      e.export_id,
      fromStep,
    )
    .run();
  return r.meta.changes === 1;
}

export async function finishExport(
  db: D1Database,
  e: ExportRecord,
  /** A failure stores its reason's code, never the builder's error text (export-failure.ts). */
  outcome: { status: "ready"; results_done: number; bytes: number } | { status: "failed"; reason: ExportFailure },
  at: string,
): Promise<void> {
  const done = outcome.status === "ready" ? outcome : { results_done: e.results_done, bytes: e.bytes };
  await db
    .prepare(
      "UPDATE exports SET status = ?, results_done = ?, bytes = ?, error = ?, finished_at = ?, upload_id = NULL WHERE tenant_id = ? AND export_id = ? AND status = 'building'",
    )
    .bind(outcome.status, done.results_done, done.bytes, outcome.status === "failed" ? outcome.reason : null, at, e.tenant_id, e.export_id)
    .run();
}

/** The public view of an export (its wire shape: schemas/results-out-views.ts ExportView). */
export function exportView(e: ExportRecord): z.output<typeof ExportView> {
  const base = `/v1/runs/${e.run_id}/exports/${e.export_id}`;
  return {
    export_id: e.export_id,
    run_id: e.run_id,
    format: e.format,
    filter: filterView(e.filter),
    status: e.status,
    results_done: e.results_done,
    results_total: e.results_total,
    bytes: e.status === "ready" ? e.bytes : null,
    ...failureView(e),
    created_at: e.created_at,
    finished_at: e.finished_at,
    status_url: base,
    download_url: `${base}/download`,
  };
}

/** A failed export's reason and its words; both null otherwise. */
export function failureView(e: Pick<ExportRecord, "status" | "error">): { error: string | null; failure_reason: ExportFailure | null } {
  if (e.status !== "failed") return { error: null, failure_reason: null };
  const reason = exportFailureOf(e.error);
  return { error: exportFailureMessage(reason), failure_reason: reason };
}

/** The stored filter as the request's fields; the failure categories stored back as the group they came from. */
function filterView(f: ResultFilter): z.output<typeof ExportFilter> {
  const first = f.failure_categories?.[0];
  const group = first === undefined ? undefined : FAILURE_GROUP[first as keyof typeof FAILURE_GROUP];
  const fields = {
    answering_model: f.answering_model,
    parsing_model: f.parsing_model,
    question_id: f.question_id,
    verdict: f.verdict,
    failure_group: group,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}
