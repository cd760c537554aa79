/**
 * The run spec: what a run grades, stored once in R2 at submit (Durable Object values stop at
 * 2 MB; a 1,000-question benchmark with manual answers is larger) and read by every job.
 * It holds model configs with secret *names* only; keys are read from worker secrets at call time.
 */
import type { Question } from "../schemas/benchmark";
import type { ModelConfig } from "../schemas/model-config";
import type { PipelineSettings } from "../pipeline/types";
import { r2Keys, type RunRef } from "../storage/r2-keys";
import type { PriceOverrides } from "../llm/prices";

export interface RunSpec {
  run_id: string;
  /** The owning tenant; absent on specs written before tenants (their keys have no `t/` prefix). */
  tenant_id?: string;
  run_name: string | null;
  benchmark_name: string;
  created_at: string;
  /** Only the selected questions (config.question_ids), in benchmark order. */
  questions: Question[];
  answering_models: ModelConfig[];
  parsing_models: ModelConfig[];
  replicate_count: number;
  settings: PipelineSettings;
  /** Price overrides for this run's cost accounting (over src/llm/prices.ts). */
  prices?: PriceOverrides;
  budget_usd?: number;
  /** The response cache (src/adapters/response-cache.ts); absent = off. */
  cache?: { enabled: boolean; ttl_s?: number };
  /** Per model id: shared rate limits over the interface's defaults. */
  limits?: Record<string, { rpm?: number; tpm?: number; concurrency?: number }>;
}

export interface JobRef {
  job_id: string;
  question: Question;
  answering: ModelConfig;
  replicate: number;
}

export function jobIds(spec: Pick<RunSpec, "questions" | "answering_models" | "replicate_count">): string[] {
  const ids: string[] = [];
  spec.questions.forEach((_, qi) =>
    spec.answering_models.forEach((_, ai) => {
      for (let r = 1; r <= spec.replicate_count; r++) ids.push(`${qi}.${ai}.${r}`);
    }),
  );
  return ids;
}

export function resolveJob(spec: RunSpec, jobId: string): JobRef | null {
  const [qi, ai, r] = jobId.split(".").map(Number) as [number, number, number];
  const question = spec.questions[qi];
  const answering = spec.answering_models[ai];
  if (!question || !answering || !(r >= 1 && r <= spec.replicate_count)) return null;
  return { job_id: jobId, question, answering, replicate: r };
}

export async function saveSpec(blobs: R2Bucket, spec: RunSpec): Promise<string> {
  const key = r2Keys.spec(spec);
  await blobs.put(key, JSON.stringify(spec), { httpMetadata: { contentType: "application/json" } });
  return key;
}

/**
 * Specs are immutable once written, so each isolate keeps the few it has parsed recently:
 * a batch of jobs from one run parses its spec once.
 */
const cache = new Map<string, Promise<RunSpec | null>>();
const CACHE_LIMIT = 8;

export function loadSpec(blobs: R2Bucket, run: RunRef): Promise<RunSpec | null> {
  const key = r2Keys.spec(run);
  const hit = cache.get(key);
  if (hit) return hit;
  const pending = (async () => {
    const obj = await blobs.get(key);
    return obj ? ((await obj.json()) as RunSpec) : null;
  })();
  cache.set(key, pending);
  pending.then((s) => s ?? cache.delete(key)).catch(() => cache.delete(key));
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return pending;
}
