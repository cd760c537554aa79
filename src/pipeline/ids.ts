/**
 * Deterministic ids. `result_id` deliberately leaves out Karenina's timestamp: a redelivered job
 * must map to the same id so it overwrites its row instead of adding a second one.
 */
import type { ModelConfig } from "../schemas/model-config";
import { canonicalKey } from "../schemas/model-identity";
import type { AnswerTemplate } from "../templates/template-schema";
import { sha256Hex } from "../lib/sha256";

/** JSON with object keys sorted at every depth, so equal values always hash equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

export interface ResultIdParts {
  run_id: string;
  question_id: string;
  answering: ModelConfig;
  parsing: ModelConfig;
  replicate: number;
  /** A scenario turn: the same node may be visited on several turns (Karenina hashes scenario_id/node/turn too). */
  scenario?: { scenario_id: string; scenario_node: string; scenario_turn: number };
}

export async function computeResultId(p: ResultIdParts): Promise<string> {
  const material = canonicalJson({
    run_id: p.run_id,
    question_id: p.question_id,
    answering: canonicalKey(p.answering),
    parsing: canonicalKey(p.parsing),
    replicate: p.replicate,
    ...(p.scenario
      ? { scenario_id: p.scenario.scenario_id, scenario_node: p.scenario.scenario_node, scenario_turn: p.scenario.scenario_turn }
      : {}),
  });
  return (await sha256Hex(material)).slice(0, 16);
}

/**
 * Template ids by template object: a run's templates come from its parsed spec, which is not
 * changed after parsing and is shared by the jobs of an isolate, so each is hashed once rather than
 * once per result (bench/throughput: sorting, serialising and hashing it was ~1 % of the CPU).
 */
const templateIds = new WeakMap<AnswerTemplate, string>();

/** Karenina hashes the template's Python source (MD5); native templates hash their canonical JSON. */
export async function computeTemplateId(template: AnswerTemplate | undefined): Promise<string> {
  if (!template) return "no_template";
  const known = templateIds.get(template);
  if (known) return known;
  const id = (await sha256Hex(canonicalJson(template))).slice(0, 32);
  templateIds.set(template, id);
  return id;
}
