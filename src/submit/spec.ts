/**
 * A run's jobs: one per question × answering model × replicate, named `q.a.r` (indices into the
 * spec), and one per scenario turn, named `s<s>.a.p.r.t` (scenario, answering model, parsing model,
 * replicate, turn from 0): a scenario's turns are a chain, each turn's job created when the
 * previous turn is recorded, so a run starts with the turn-0 jobs only. The spec itself is
 * storage/run-spec.ts, stored by storage/spec-store.ts.
 */
import type { Question, Scenario } from "../schemas/benchmark";
import type { Message } from "../schemas/message";
import type { ScenarioTurnRef } from "../pipeline/types";
import type { ModelConfig } from "../schemas/model-config";
import type { RunSpec } from "../storage/run-spec";

export interface JobRef {
  job_id: string;
  question: Question;
  answering: ModelConfig;
  replicate: number;
  /** A scenario turn's place in its scenario (jobs/scenario-turn.ts), stamped on its result. */
  scenario?: ScenarioTurnRef;
  /** A scenario turn's conversation so far, sent before the question. */
  history?: Message[];
}

export function jobIds(
  spec: Pick<RunSpec, "questions" | "answering_models" | "parsing_models" | "replicate_count" | "scenarios">,
): string[] {
  const ids: string[] = [];
  spec.questions.forEach((_, qi) =>
    spec.answering_models.forEach((_, ai) => {
      for (let r = 1; r <= spec.replicate_count; r++) ids.push(`${qi}.${ai}.${r}`);
    }),
  );
  (spec.scenarios ?? []).forEach((_, si) =>
    spec.answering_models.forEach((_, ai) =>
      spec.parsing_models.forEach((_, pi) => {
        for (let r = 1; r <= spec.replicate_count; r++)
          ids.push(turnJobId({ scenario: si, answering: ai, parsing: pi, replicate: r, turn: 0 }));
      }),
    ),
  );
  return ids;
}

/** Where a scenario turn job sits: indices into the spec, the replicate, the turn from 0. */
export interface TurnJobKey {
  scenario: number;
  answering: number;
  parsing: number;
  replicate: number;
  turn: number;
}

/** A scenario chain (one scenario × answering × parsing × replicate): its turn jobs' id without the turn. */
export const chainId = (k: Omit<TurnJobKey, "turn">) => `s${k.scenario}.${k.answering}.${k.parsing}.${k.replicate}`;
export const turnJobId = (k: TurnJobKey) => `${chainId(k)}.${k.turn}`;

const TURN_JOB = /^s(\d+)\.(\d+)\.(\d+)\.(\d+)\.(\d+)$/;

export function parseTurnJobId(jobId: string): TurnJobKey | null {
  const m = TURN_JOB.exec(jobId);
  if (!m) return null;
  const [scenario, answering, parsing, replicate, turn] = m.slice(1).map(Number) as [number, number, number, number, number];
  return { scenario, answering, parsing, replicate, turn };
}

export interface TurnJobRef {
  job_id: string;
  key: TurnJobKey;
  scenario: Scenario;
  answering: ModelConfig;
  parsing: ModelConfig;
  replicate: number;
}

export function resolveTurnJob(spec: RunSpec, jobId: string): TurnJobRef | null {
  const key = parseTurnJobId(jobId);
  if (!key) return null;
  const scenario = spec.scenarios?.[key.scenario];
  const answering = spec.answering_models[key.answering];
  const parsing = spec.parsing_models[key.parsing];
  if (!scenario || !answering || !parsing || !(key.replicate >= 1 && key.replicate <= spec.replicate_count)) return null;
  return { job_id: jobId, key, scenario, answering, parsing, replicate: key.replicate };
}

export function resolveJob(spec: RunSpec, jobId: string): JobRef | null {
  if (parseTurnJobId(jobId)) return null;
  const [qi, ai, r] = jobId.split(".").map(Number) as [number, number, number];
  const question = spec.questions[qi];
  const answering = spec.answering_models[ai];
  if (!question || !answering || !(r >= 1 && r <= spec.replicate_count)) return null;
  return { job_id: jobId, question, answering, replicate: r };
}
