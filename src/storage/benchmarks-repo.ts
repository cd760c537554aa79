/**
 * Stored benchmarks: the validated benchmark JSON in R2 (key derived from the id), one D1 row per
 * benchmark for listings. Written R2 first, then D1, so a listed benchmark always has its body;
 * a crash in between leaves only an unlisted object that a retry with a new id never reuses.
 */
import { z } from "zod";
import { sha256Hex } from "../lib/sha256";
import { Benchmark } from "../schemas/benchmark";
import { BENCHMARK_SOURCES } from "../schemas/benchmark-views";
import { r2Keys } from "./r2-keys";

export type BenchmarkSource = (typeof BENCHMARK_SOURCES)[number];

const BenchmarkRow = z.object({
  benchmark_id: z.string(),
  tenant_id: z.string(),
  name: z.string(),
  question_count: z.number(),
  source: z.enum(BENCHMARK_SOURCES),
  body_key: z.string(),
  body_sha256: z.string(),
  created_at: z.string(),
});
export type BenchmarkRecord = z.infer<typeof BenchmarkRow>;

export async function saveBenchmark(
  db: D1Database,
  blobs: R2Bucket,
  ids: { benchmark_id: string; tenant_id: string; created_at: string; source: BenchmarkSource },
  benchmark: Benchmark,
): Promise<BenchmarkRecord> {
  const body = JSON.stringify(benchmark);
  const record: BenchmarkRecord = {
    benchmark_id: ids.benchmark_id,
    tenant_id: ids.tenant_id,
    name: benchmark.name,
    question_count: benchmark.questions.length,
    source: ids.source,
    body_key: r2Keys.benchmark(ids.tenant_id, ids.benchmark_id),
    body_sha256: await sha256Hex(body),
    created_at: ids.created_at,
  };
  await blobs.put(record.body_key, body, { httpMetadata: { contentType: "application/json" } });
  await db
    .prepare(
      `INSERT INTO benchmarks (benchmark_id, tenant_id, name, question_count, source, body_key, body_sha256, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      record.benchmark_id,
      record.tenant_id,
      record.name,
      record.question_count,
      record.source,
      record.body_key,
      record.body_sha256,
      record.created_at,
    )
    .run();
  return record;
}

export async function getBenchmarkRecord(db: D1Database, tenantId: string, benchmarkId: string): Promise<BenchmarkRecord | null> {
  const row = await db.prepare("SELECT * FROM benchmarks WHERE tenant_id = ? AND benchmark_id = ?").bind(tenantId, benchmarkId).first();
  return row ? BenchmarkRow.parse(row) : null;
}

/** The stored benchmark, validated again (the schema may have grown since it was written). */
/**
 * The row and its body; null when there is no row. `benchmark: null`: the row is there but its body
 * is not, which only a DELETE that stopped between the two leaves (deleteBenchmark): the caller says
 * to repeat it, rather than the 500 this was before 8 Dec.
 */
export async function loadBenchmark(
  db: D1Database,
  blobs: R2Bucket,
  tenantId: string,
  benchmarkId: string,
): Promise<{ record: BenchmarkRecord; benchmark: Benchmark | null } | null> {
  const record = await getBenchmarkRecord(db, tenantId, benchmarkId);
  if (!record) return null;
  const obj = await blobs.get(record.body_key);
  return { record, benchmark: obj ? Benchmark.parse(await obj.json()) : null };
}

/**
 * Deletes the body, then the row (a crash between leaves a listed benchmark whose reads answer 404
 * saying to repeat the DELETE, loadBenchmark). `withRows` go in the row's batch right after its delete (its audit entry, by auditIfChanged).
 */
export async function deleteBenchmark(
  db: D1Database,
  blobs: R2Bucket,
  record: BenchmarkRecord,
  withRows: readonly D1PreparedStatement[] = [],
): Promise<void> {
  await blobs.delete(record.body_key);
  await db.batch([
    db.prepare("DELETE FROM benchmarks WHERE tenant_id = ? AND benchmark_id = ?").bind(record.tenant_id, record.benchmark_id),
    ...withRows,
  ]);
}

/** Newest first; the cursor is the last row's `created_at|benchmark_id`. */
export async function listBenchmarks(
  db: D1Database,
  tenantId: string,
  limit: number,
  cursor: { created_at: string; benchmark_id: string } | null,
): Promise<BenchmarkRecord[]> {
  const stmt = cursor
    ? db
        .prepare(
          `SELECT * FROM benchmarks WHERE tenant_id = ? AND (created_at, benchmark_id) < (?, ?) ORDER BY created_at DESC, benchmark_id DESC LIMIT ?`,
        )
        .bind(tenantId, cursor.created_at, cursor.benchmark_id, limit)
    : db.prepare("SELECT * FROM benchmarks WHERE tenant_id = ? ORDER BY created_at DESC, benchmark_id DESC LIMIT ?").bind(tenantId, limit);
  const { results } = await stmt.all();
  return results.map((r) => BenchmarkRow.parse(r));
}
