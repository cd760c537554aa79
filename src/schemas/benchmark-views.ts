/** What the /v1/benchmarks routes answer (the handlers' bodies are typed by these). */
import { z } from "zod";
import { Benchmark } from "./benchmark";

export const BENCHMARK_SOURCES = ["native", "karenina_checkpoint"] as const;

export const BenchmarkListing = z.strictObject({
  benchmark_id: z.string(),
  name: z.string(),
  question_count: z.number().int(),
  source: z.enum(BENCHMARK_SOURCES),
  created_at: z.string(),
  url: z.string(),
});

export const BenchmarkList = z.strictObject({
  benchmarks: z.array(BenchmarkListing),
  next_cursor: z.string().nullable(),
});

/** The stored benchmark with its listing fields. */
export const StoredBenchmark = BenchmarkListing.extend({ benchmark: Benchmark });

const ImportIssue = z.strictObject({ path: z.string(), question_id: z.string().optional(), message: z.string() });

export const ImportedCheckpoint = z.strictObject({
  benchmark_id: z.string(),
  imported: z.number().int(),
  /** Kept with a loss that changes nothing essential. */
  warnings: z.array(ImportIssue),
  /** Templates that could not be imported: their questions fail with template_validation. */
  errors: z.array(ImportIssue),
  url: z.string(),
});

export const DeletedBenchmark = z.strictObject({ benchmark_id: z.string(), deleted: z.literal(true) });

/** A Karenina JSON-LD checkpoint (schema.org DataFeed), as exported; imported back by POST /v1/benchmarks/import. */
export const CheckpointDocument = z.looseObject({ "@context": z.unknown(), "@type": z.string() });
