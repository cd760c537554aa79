/**
 * Run exports (src/exports/README.md):
 *   GET  /v1/runs/:id/export?format=csv|ndjson&<filters>   streamed from D1 (no trace needed)
 *   POST /v1/runs/:id/exports {format, <filters>}          built into R2 by the export queue, traces included
 *   GET  /v1/runs/:id/exports?limit=&cursor=               the run's exports, newest first (an id lost is found here)
 *   GET  /v1/runs/:id/exports/:export_id                   its progress
 *   GET  /v1/runs/:id/exports/:export_id/download          the finished object, streamed
 * Scopes: runs:read, except POST (runs:write: it writes an object, and every write route takes a write scope).
 */
import { type Context, Hono } from "hono";
import type { z } from "zod";
import { exportWriter } from "../exports/export-writer";
import type { Env } from "../env";
import { type ExportRecord, exportView, failureView, getExport, insertExport, listRunExports } from "../exports/exports-repo";
import { contentDisposition, exportFileName } from "../exports/file-name";
import { CONTENT_TYPES, EXTENSIONS } from "../exports/formats";
import { streamFromD1 } from "../exports/stream-d1";
import { CreateExportRequest, ExportQuery, ListQuery } from "../schemas/api";
import { ExportList, ExportView } from "../schemas/results-out-views";
import { r2Keys } from "../storage/r2-keys";
import { countResults } from "../storage/results-repo";
import type { RunRecord } from "../storage/runs-repo";
import { requireSpec, runRefOf } from "../storage/spec-store";
import { type AppEnv, requireScope } from "./auth";
import { readJson, validate, validateQuery } from "./body";
import { decodeCreatedCursor, nextCreatedCursor } from "./cursor";
import { ApiFailure, invalidQuery } from "./errors";
import { reply } from "./reply";
import { resultFilter } from "./result-filter";
import { requireEnded, requireRun } from "./runs";

/** An export request is a format and a few ids. */
const EXPORT_BODY_LIMIT = { bytes: 16_000, advice: "send the format and the filters only" };

export const runExports = new Hono<AppEnv>();

runExports.get("/:id/export", requireScope("runs:read"), async (c) => {
  const run = await requireRun(c, c.req.param("id"));
  const q = validateQuery(ExportQuery, c.req.queries());
  if (q.format === "karenina") {
    throw invalidQuery([
      {
        path: "query format",
        message: `karenina carries every result's trace, read from R2 one object per result: build it with POST /v1/runs/${run.run_id}/exports {"format": "karenina"} and download it when its status is ready (csv and ndjson stream here)`,
      },
    ]);
  }
  const spec = await requireSpec(c.env.BLOBS, run);
  const filter = await resultFilter(q, async () => spec);
  const writer = await exportWriter(c.env.DB, run, spec, q.format, filter, Date.now());
  return new Response(streamFromD1(c.env.DB, run, filter, writer), {
    headers: {
      "content-type": CONTENT_TYPES[q.format],
      "content-disposition": contentDisposition(exportFileName({ ...run, at: new Date().toISOString(), extension: EXTENSIONS[q.format] })),
    },
  });
});

runExports.post("/:id/exports", requireScope("runs:write"), async (c) => {
  const run = await requireRun(c, c.req.param("id"));
  const body = validate(CreateExportRequest, (await readJson(c, EXPORT_BODY_LIMIT)).value);
  const e = await startExport(c, run, body);
  c.header("Location", exportView(e).status_url);
  return reply(c, ExportView, exportView(e), 202);
});

runExports.get("/:id/exports", requireScope("runs:read"), async (c) => {
  const run = await requireRun(c, c.req.param("id"));
  const q = validateQuery(ListQuery, c.req.queries());
  const rows = await listRunExports(c.env.DB, run, q.limit, decodeCreatedCursor(q.cursor));
  return reply(c, ExportList, { exports: rows.map(exportView), next_cursor: nextCreatedCursor(rows, q.limit, (e) => e.export_id) });
});

runExports.get("/:id/exports/:export_id", requireScope("runs:read"), async (c) => {
  const e = await requireExport(c.env.DB, await requireRun(c, c.req.param("id")), c.req.param("export_id"));
  return reply(c, ExportView, exportView(e));
});

runExports.get("/:id/exports/:export_id/download", requireScope("runs:read"), async (c) => {
  const run = await requireRun(c, c.req.param("id"));
  return exportDownload(c.env, run, await requireExport(c.env.DB, run, c.req.param("export_id")));
});

/**
 * Records an export of `run` and queues its first builder step (the API's POST and the dashboard's Export buttons).
 * A run still queued or running is refused: the builder pages results by id while new ones land between
 * its pages, so the file would hold an arbitrary subset under a header counted before them.
 */
export async function startExport(c: Context<AppEnv>, run: RunRecord, body: z.output<typeof CreateExportRequest>): Promise<ExportRecord> {
  await requireEnded(
    c,
    run,
    `export it once it has finished (or cancel it to export what it has; GET /v1/runs/${run.run_id}/export?format=csv|ndjson streams the results recorded so far)`,
  );
  const env = c.env;
  const spec = await requireSpec(env.BLOBS, run);
  const filter = await resultFilter(body, async () => spec, "body");
  const exportId = crypto.randomUUID();
  const counts = await countResults(env.DB, run, filter);
  await insertExport(env.DB, {
    tenant_id: run.tenant_id,
    export_id: exportId,
    run_id: run.run_id,
    format: body.format,
    filter,
    r2_key: r2Keys.export(runRefOf(run), exportId, EXTENSIONS[body.format]),
    results_total: counts.total,
    created_at: new Date().toISOString(),
  });
  await env.EXPORTS.send({ tenant_id: run.tenant_id, export_id: exportId, step: 0 });
  return (await getExport(env.DB, run.tenant_id, exportId))!;
}

/** A finished export's object, streamed (409 export_not_ready while building or after a failure). */
export async function exportDownload(env: Pick<Env, "BLOBS">, run: RunRecord, e: ExportRecord): Promise<Response> {
  if (e.status !== "ready") {
    throw new ApiFailure({
      code: "export_not_ready",
      message:
        e.status === "failed"
          ? `export ${e.export_id} failed: ${failureView(e).error}`
          : `export ${e.export_id} is building (${e.results_done} of ${e.results_total} results); poll ${exportView(e).status_url}`,
    });
  }
  const obj = await env.BLOBS.get(e.r2_key);
  if (!obj) throw new ApiFailure({ code: "not_found", message: `export ${e.export_id} is no longer stored; request a new one` });
  return new Response(obj.body, {
    headers: {
      "content-type": CONTENT_TYPES[e.format],
      "content-length": String(obj.size),
      // Each export its own file: the run's name, when the export was made and its id (file-name.ts).
      "content-disposition": contentDisposition(
        exportFileName({ ...run, at: e.created_at, export_id: e.export_id, extension: EXTENSIONS[e.format] }),
      ),
    },
  });
}

/** The run's export `exportId`; another run's or another tenant's is a 404. */
export async function requireExport(db: D1Database, run: { tenant_id: string; run_id: string }, exportId: string): Promise<ExportRecord> {
  const e = await getExport(db, run.tenant_id, exportId);
  if (!e || e.run_id !== run.run_id) throw new ApiFailure({ code: "not_found", message: `no export ${exportId} of run ${run.run_id}` });
  return e;
}
