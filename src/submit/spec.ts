/**
 * A run's jobs: one per question × answering model × replicate, named `q.a.r` (indices into the
 * spec). The spec itself is storage/run-spec.ts, stored by storage/spec-store.ts.
 */
import type { Question } from "../schemas/benchmark";
import type { ModelConfig } from "../schemas/model-config";
import type { RunSpec } from "../storage/run-spec";

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
