/**
 * Building an export into R2 (edge), one queue message per step. Exports whose results need their
 * trace (Karenina's carries `template.trace_messages`) read it from the result's row (a small
 * result) or its R2 object (one subrequest each), and one invocation may make only so many
 * subrequests, so a step handles at most STEP_RESULTS results:
 *
 *   1. the row must still be `building` at the message's step (a redelivered or duplicated message
 *      finds a later step and does nothing);
 *   2. step 0 writes the format's start (and fixes the CSV columns on the row);
 *   3. the step's results are read whole in order (READ_WINDOW at a time) and written; every
 *      PART_SIZE bytes go up as the next part of one multipart upload (R2: equal parts ≥ 5 MiB but
 *      the last). Bytes earlier steps could not fit in a part wait in `segments` (one object per
 *      step); they are read, once, only when they and this step's bytes fill a part;
 *   4. not the last page: what is left is saved as this step's segment, the row advances
 *      (compare-and-set on step), the segments now in parts are deleted and the next step is
 *      queued. The last page: the end is written, the rest is the last part (a small export with
 *      no part yet is one plain put), the upload completes, the row is `ready`.
 * Reading the leftover of every step back into the next (a single carried tail) would copy up to
 * one part per step: with 500 small results a step (~1.4 MB) that is several times the export.
 * Parts are numbered by their position, so a step repeated after a crash uploads the same bytes
 * under the same numbers.
 */
import { z } from "zod";
import type { Env } from "../env";
import { log } from "../log";
import { r2Keys } from "../storage/r2-keys";
import { fullResultJson } from "../storage/result-store";
import { pageResultRows, type StoredResultRow } from "../storage/results-repo";
import { listScenarioResults } from "../storage/scenario-results-repo";
import { runRefOf, requireSpec } from "../storage/spec-store";
import { getRun } from "../storage/runs-repo";
import { advanceExport, type ExportRecord, finishExport, getExport, type UploadedPart } from "./exports-repo";
import type { ExportFailure } from "./export-failure";
import { computeCsvLayout, exportWriter } from "./export-writer";
import { CONTENT_TYPES } from "./formats";
import { CsvLayout } from "./karenina-csv";
import { PartBuffer } from "./part-buffer";

/** Results per invocation: a large result is one R2 read (subrequest); a small one is in its D1 row. */
export const STEP_RESULTS = 500;
/** R2's minimum part size, used for every part: parts but the last must be equal. */
export const PART_SIZE = 5 * 1024 * 1024;
/** R2 reads in flight at once within a step. */
const READ_WINDOW = 8;

export const ExportMessage = z.strictObject({ tenant_id: z.string().min(1), export_id: z.string().min(1), step: z.number().int().min(0) });
export type ExportMessage = z.output<typeof ExportMessage>;

/** Per-step sizes; tests make a step smaller to walk many steps over a small run. */
export interface StepLimits {
  results: number;
  partSize: number;
}
const LIMITS: StepLimits = { results: STEP_RESULTS, partSize: PART_SIZE };

type BuildEnv = Pick<Env, "DB" | "BLOBS" | "EXPORTS">;

export async function buildStep(env: BuildEnv, msg: ExportMessage, now: number, limits: StepLimits = LIMITS): Promise<void> {
  const e = await getExport(env.DB, msg.tenant_id, msg.export_id);
  if (!e || e.status !== "building" || e.step !== msg.step) return;
  try {
    await step(env, e, now, limits);
  } catch (err) {
    // Unreadable state (a result object gone, a run deleted) will not mend on retry.
    if (err instanceof ExportBroken) {
      // The detail (ids, keys) is for the operator's log; the export says the reason in the user's words.
      log.warn("export_broken", { export_id: e.export_id, reason: err.reason, detail: err.message });
      await finishExport(env.DB, e, { status: "failed", reason: err.reason }, new Date(now).toISOString());
      return;
    }
    throw err;
  }
}

/** State a retry cannot mend: its reason (stored, shown in words) and the detail (logged only). */
class ExportBroken extends Error {
  constructor(
    readonly reason: Extract<ExportFailure, "run_deleted" | "stored_data_missing">,
    detail: string,
  ) {
    super(detail);
  }
}

async function step(env: BuildEnv, e: ExportRecord, now: number, limits: StepLimits): Promise<void> {
  const run = await getRun(env.DB, e.tenant_id, e.run_id);
  // A run being deleted may have lost its objects already, and the builder's own would outlive it.
  if (!run || run.deleting_at) throw new ExportBroken("run_deleted", `run ${e.run_id} no longer exists`);
  const ref = runRefOf(run);
  const spec = await requireSpec(env.BLOBS, run);
  const layout =
    e.format !== "csv"
      ? undefined
      : e.layout_json
        ? CsvLayout.parse(JSON.parse(e.layout_json))
        : await computeCsvLayout(env.DB, run, spec, e.filter, now);
  const writer = await exportWriter(env.DB, run, spec, e.format, e.filter, now, layout);
  const encoder = new TextEncoder();
  const buffer = new PartBuffer(limits.partSize);
  // Earlier steps' segments are read only when a part needs them, then once: every byte is
  // written once as a segment and read once into a part.
  const pendingSize = e.segments.reduce((n, sgm) => n + sgm.size, 0);
  let segmentsLoaded = e.segments.length === 0;
  const loadSegments = async () => {
    if (segmentsLoaded) return;
    segmentsLoaded = true;
    const chunks: Uint8Array[] = [];
    for (const sgm of e.segments) {
      const obj = await env.BLOBS.get(r2Keys.exportSegment(ref, e.export_id, sgm.step));
      if (!obj) throw new ExportBroken("stored_data_missing", `segment ${sgm.step} of export ${e.export_id} is missing`);
      chunks.push(new Uint8Array(await obj.arrayBuffer()));
    }
    buffer.prepend(chunks);
  };

  let multipart = e.upload_id ? env.BLOBS.resumeMultipartUpload(e.r2_key, e.upload_id) : null;
  const parts: UploadedPart[] = [...e.parts];
  let bytes = e.bytes;
  const flush = async (final: boolean) => {
    if (final || pendingSize + buffer.size >= limits.partSize) await loadSegments();
    for (let part = segmentsLoaded ? buffer.takePart() : null; part; part = buffer.takePart()) {
      multipart ??= await env.BLOBS.createMultipartUpload(e.r2_key, { httpMetadata: { contentType: CONTENT_TYPES[e.format] } });
      parts.push(await multipart.uploadPart(parts.length + 1, part));
      bytes += part.byteLength;
    }
    if (!final) return;
    const rest = buffer.takeRest();
    bytes += rest.byteLength;
    if (!multipart) {
      await env.BLOBS.put(e.r2_key, rest, { httpMetadata: { contentType: CONTENT_TYPES[e.format] } });
      return;
    }
    if (rest.byteLength > 0) parts.push(await multipart.uploadPart(parts.length + 1, rest));
    await multipart.complete(parts);
  };
  if (e.step === 0) buffer.push(encoder.encode(writer.start));

  const rows = await pageResultRows<StoredResultRow & { result_id: string }>(
    env.DB,
    "result_id, r2_key, compact_json, trace_json",
    run,
    { limit: limits.results, after: e.after_result_id },
    e.filter,
  );
  let index = e.results_done;
  for (let i = 0; i < rows.length; i += READ_WINDOW) {
    const window = rows.slice(i, i + READ_WINDOW);
    const texts = await Promise.all(
      window.map(async (r) => {
        // A small result is whole in its row; a large one is read from its R2 object.
        const text = await fullResultJson(env.BLOBS, r);
        if (text === null) throw new ExportBroken("stored_data_missing", `result ${r.result_id} has no object in R2`);
        return text;
      }),
    );
    for (const text of texts) {
      buffer.push(encoder.encode(writer.result(JSON.parse(text) as object, index)));
      index++;
    }
    await flush(false);
  }

  const consumed = segmentsLoaded ? e.segments : [];
  const dropConsumed = () =>
    consumed.length ? env.BLOBS.delete(consumed.map((sgm) => r2Keys.exportSegment(ref, e.export_id, sgm.step))) : undefined;
  const last = rows.length < limits.results;
  if (last) {
    const scenarios = writer.endWithScenarios ? await scenarioRecords(env.DB, run) : [];
    buffer.push(encoder.encode(scenarios.length && writer.endWithScenarios ? writer.endWithScenarios(scenarios) : writer.end));
    await flush(true);
    await finishExport(env.DB, e, { status: "ready", results_done: index, bytes }, new Date(now).toISOString());
    if (e.segments.length) await env.BLOBS.delete(e.segments.map((sgm) => r2Keys.exportSegment(ref, e.export_id, sgm.step)));
    return;
  }
  // What is left (under one part) becomes this step's segment; segments read into parts are dropped
  // once the row has moved on (a retry of this step must still find them).
  const rest = buffer.takeRest();
  const segments = [...(segmentsLoaded ? [] : e.segments), ...(rest.byteLength ? [{ step: e.step, size: rest.byteLength }] : [])];
  if (rest.byteLength) await env.BLOBS.put(r2Keys.exportSegment(ref, e.export_id, e.step), rest);
  const advanced = await advanceExport(env.DB, e, e.step, {
    upload_id: multipart?.uploadId ?? null,
    parts,
    segments,
    after_result_id: rows[rows.length - 1]!.result_id,
    results_done: index,
    bytes,
    layout_json: layout ? JSON.stringify(layout) : null,
  });
  if (advanced) await dropConsumed();
  if (advanced) await env.EXPORTS.send({ tenant_id: e.tenant_id, export_id: e.export_id, step: e.step + 1 } satisfies ExportMessage);
}

/** Every ended scenario of the run (Karenina's scenario_results), in chain order, a page at a time. */
async function scenarioRecords(db: D1Database, run: { tenant_id: string; run_id: string }): Promise<string[]> {
  const out: string[] = [];
  let after: string | null = null;
  for (;;) {
    const page = await listScenarioResults(db, run, { limit: 500, after });
    out.push(...page.map((r) => r.record_json));
    if (page.length < 500) return out;
    after = page[page.length - 1]!.chain_id;
  }
}
