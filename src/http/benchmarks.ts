/** /v1/benchmarks: store native benchmarks, import and export Karenina checkpoints, list, read. */
import { type Context, Hono } from "hono";
import type { Env } from "../env";
import { type AppEnv, requireScope, tenantOf } from "./auth";
import { exportCheckpoint } from "../karenina/export";
import { Checkpoint, importCheckpoint, repeatedQuestionIds } from "../karenina/import";
import { javaScriptSourceIssues } from "../sandbox/source-check";
import { ListQuery } from "../schemas/api";
import { Benchmark } from "../schemas/benchmark";
import {
  type BenchmarkRecord,
  type BenchmarkSource,
  listBenchmarks,
  loadBenchmark,
  saveBenchmark,
  deleteBenchmark,
  getBenchmarkRecord,
} from "../storage/benchmarks-repo";
import { actorOf, auditIfChanged } from "../tenants/audit";
import { fieldIssues, readJson, validate, validateQuery } from "./body";
import { decodeCursor, encodeCursor } from "./cursor";
import { ApiFailure, invalidBody } from "./errors";
import { warningsHeader } from "./export-warnings";
import { WIRE_PARSE } from "../lib/wire-issues";
import type { z } from "zod";
import { reply } from "./reply";
import { BenchmarkList, BenchmarkListing, DeletedBenchmark, ImportedCheckpoint, StoredBenchmark } from "../schemas/benchmark-views";
import { BENCHMARK_BODY_LIMIT, IMPORT_BODY_LIMIT } from "../schemas/body-limits";

export const benchmarks = new Hono<AppEnv>();

const view = (r: BenchmarkRecord): z.input<typeof BenchmarkListing> => ({
  benchmark_id: r.benchmark_id,
  name: r.name,
  question_count: r.question_count,
  source: r.source,
  created_at: r.created_at,
  url: `/v1/benchmarks/${r.benchmark_id}`,
});

/** JavaScript that does not compile or define its entry is the caller's 400, before anything is stored. */
export async function refuseBrokenCode(benchmark: Benchmark, prefix: string): Promise<void> {
  const issues = await javaScriptSourceIssues(benchmark);
  if (issues.length) throw invalidBody(issues.map((i) => ({ path: prefix + i.path, message: i.message })));
}

async function store(env: Env, tenantId: string, benchmark: Benchmark, source: BenchmarkSource): Promise<BenchmarkRecord> {
  const ids = { benchmark_id: crypto.randomUUID(), tenant_id: tenantId, created_at: new Date().toISOString(), source };
  return saveBenchmark(env.DB, env.BLOBS, ids, benchmark);
}

benchmarks.post("/", requireScope("benchmarks:write"), async (c) => {
  const raw = await readJson(c, BENCHMARK_BODY_LIMIT);
  const benchmark = validate(Benchmark, raw.value);
  await refuseBrokenCode(benchmark, "");
  const record = await store(c.env, tenantOf(c).tenant_id, benchmark, "native");
  c.header("Location", view(record).url);
  return reply(c, BenchmarkListing, view(record), 201);
});

benchmarks.post("/import", requireScope("benchmarks:write"), async (c) => {
  const raw = await readJson(jsonLdAsJson(c), IMPORT_BODY_LIMIT);
  const checkpoint = validate(Checkpoint, raw.value);
  const { benchmark, warnings, errors } = importCheckpoint(checkpoint);
  const repeated = repeatedQuestionIds(benchmark.questions);
  if (repeated.length) throw invalidBody(repeated);
  const parsed = Benchmark.safeParse(benchmark, WIRE_PARSE);
  if (!parsed.success) {
    // Rare: the checkpoint is well formed but breaks a benchmark rule (e.g. duplicate trait names).
    throw invalidBody(fieldIssues(parsed.error.issues).map((i) => ({ ...i, path: `(imported benchmark) ${i.path}` })));
  }
  const record = await store(c.env, tenantOf(c).tenant_id, parsed.data, "karenina_checkpoint");
  c.header("Location", view(record).url);
  return reply(
    c,
    ImportedCheckpoint,
    { benchmark_id: record.benchmark_id, imported: parsed.data.questions.length, warnings, errors, url: view(record).url },
    201,
  );
});

benchmarks.get("/", requireScope("benchmarks:read"), async (c) => {
  const q = validateQuery(ListQuery, c.req.queries());
  const cursor = q.cursor ? decodeCursor(q.cursor, ["created_at", "benchmark_id"]) : null;
  const rows = await listBenchmarks(
    c.env.DB,
    tenantOf(c).tenant_id,
    q.limit,
    cursor && { created_at: cursor[0]!, benchmark_id: cursor[1]! },
  );
  const last = rows.length === q.limit ? rows[rows.length - 1] : undefined;
  return reply(c, BenchmarkList, {
    benchmarks: rows.map(view),
    next_cursor: last ? encodeCursor([last.created_at, last.benchmark_id]) : null,
  });
});

benchmarks.get("/:id", requireScope("benchmarks:read"), async (c) => {
  const { record, benchmark } = await requireBenchmark(c.env, tenantOf(c).tenant_id, c.req.param("id"));
  return reply(c, StoredBenchmark, { ...view(record), benchmark });
});

benchmarks.get("/:id/checkpoint", requireScope("benchmarks:read"), async (c) => {
  const { record, benchmark } = await requireBenchmark(c.env, tenantOf(c).tenant_id, c.req.param("id"));
  const { checkpoint, warnings } = exportCheckpoint(benchmark, record.benchmark_id, record.created_at);
  if (warnings.length) {
    c.header("X-Edgeval-Export-Warnings", String(warnings.length));
    // What was left out (a compound trait, a JavaScript verify) must reach the caller, not only a count.
    c.header("X-Edgeval-Export-Warning-Messages", warningsHeader(warnings));
  }
  return c.body(JSON.stringify(checkpoint, null, 2), 200, {
    "content-type": "application/ld+json",
    "content-disposition": `attachment; filename="${record.benchmark_id}.jsonld"`,
  });
});

benchmarks.delete("/:id", requireScope("benchmarks:write"), async (c) => {
  const tenantId = tenantOf(c).tenant_id;
  const record = await getBenchmarkRecord(c.env.DB, tenantId, c.req.param("id"));
  if (!record)
    throw new ApiFailure({ code: "not_found", message: `no benchmark ${c.req.param("id")}; list benchmarks with GET /v1/benchmarks` });
  // The entry goes in the batch deleting the row: apart, a failed entry left the benchmark gone unaudited and its retry a 404.
  await deleteBenchmark(c.env.DB, c.env.BLOBS, record, [
    auditIfChanged(c.env.DB, {
      tenant_id: tenantId,
      actor: actorOf(c.get("principal")),
      action: "benchmark.deleted",
      target: record.benchmark_id,
      detail: { name: record.name },
    }),
  ]);
  return reply(c, DeletedBenchmark, { benchmark_id: record.benchmark_id, deleted: true });
});

export async function requireBenchmark(env: Env, tenantId: string, id: string) {
  const found = await loadBenchmark(env.DB, env.BLOBS, tenantId, id);
  if (!found) throw new ApiFailure({ code: "not_found", message: `no benchmark ${id}; list benchmarks with GET /v1/benchmarks` });
  if (!found.benchmark) throw new ApiFailure({ code: "not_found", message: benchmarkBeingDeleted(id) });
  return { record: found.record, benchmark: found.benchmark };
}

/** A benchmark whose DELETE stopped after its body went (loadBenchmark's `benchmark: null`): what to do. */
export const benchmarkBeingDeleted = (id: string) =>
  `benchmark ${id} is being deleted: a DELETE of it stopped part-way; repeat DELETE /v1/benchmarks/${id} to complete it`;

/** A checkpoint may arrive as `application/ld+json`: read it like JSON (same caps and errors). */
function jsonLdAsJson(c: Context): Context {
  if (!/^application\/ld\+json\b/i.test(c.req.header("content-type") ?? "")) return c;
  const header = (name: string) => (name.toLowerCase() === "content-type" ? "application/json" : c.req.header(name));
  return { req: { header, raw: c.req.raw } } as unknown as Context;
}
