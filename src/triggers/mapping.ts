/**
 * A delivery's JSON payload + its trigger → the body POST /v1/runs would have received, plus the
 * question ids to keep. Only RFC 6901 pointers read the payload; what they find is placed into
 * fixed targets and then validated by the same CreateRunRequest schema as any run body.
 */
import type { FieldIssue } from "../schemas/field-issue";
import type { TriggerSpec } from "./triggers-repo";
import { resolvePointer } from "./pointer";

export type Mapped = { ok: true; body: Record<string, unknown>; question_ids: string[] | null } | { ok: false; issues: FieldIssue[] };

export function mapPayload(spec: TriggerSpec, payload: unknown): Mapped {
  const issues: FieldIssue[] = [];
  const m = spec.mapping;
  const read = (pointer: string): unknown => {
    const r = resolvePointer(payload, pointer);
    if (!r.found)
      issues.push({
        path: `payload ${pointer}`,
        message: `the payload has nothing at ${JSON.stringify(r.at)} (mapping pointer ${JSON.stringify(pointer)})`,
      });
    return r.found ? r.value : undefined;
  };
  const config: Record<string, unknown> = structuredClone(spec.config);
  const body: Record<string, unknown> = { benchmark_id: spec.benchmark_id, config };
  if (spec.preset_id) body.preset_id = spec.preset_id;
  if (spec.webhook_endpoint_ids) body.webhook_endpoint_ids = spec.webhook_endpoint_ids;

  if (m.run_name) body.run_name = "literal" in m.run_name ? m.run_name.literal : read(m.run_name.pointer);
  if (m.answering_models) config.answering_models = read(m.answering_models);
  if (m.parsing_models) config.parsing_models = read(m.parsing_models);

  let questionIds: string[] | null = null;
  if (m.question_ids) {
    const ids = read(m.question_ids);
    if (Array.isArray(ids) && ids.every((x) => typeof x === "string")) questionIds = ids;
    else if (ids !== undefined)
      issues.push({ path: `payload ${m.question_ids}`, message: "question_ids must point at an array of strings" });
  }

  if (m.manual_answers) {
    const answers = manualAnswers(m.manual_answers, payload, issues);
    if (answers) placeAnswers(config, answers, m.manual_answers.model_id, issues);
  }
  return issues.length ? { ok: false, issues } : { ok: true, body, question_ids: questionIds };
}

type ManualMapping = NonNullable<TriggerSpec["mapping"]["manual_answers"]>;

function manualAnswers(m: ManualMapping, payload: unknown, issues: FieldIssue[]): Record<string, unknown> | null {
  if ("pointer" in m) {
    const r = resolvePointer(payload, m.pointer);
    if (r.found && r.value !== null && typeof r.value === "object" && !Array.isArray(r.value)) return r.value as Record<string, unknown>;
    issues.push({ path: `payload ${m.pointer}`, message: "manual_answers must point at an object keyed by question id" });
    return null;
  }
  const items = resolvePointer(payload, m.items);
  if (!items.found || !Array.isArray(items.value)) {
    issues.push({ path: `payload ${m.items}`, message: "manual_answers.items must point at an array" });
    return null;
  }
  const out: Record<string, unknown> = {};
  items.value.forEach((item, i) => {
    const id = resolvePointer(item, m.id);
    const answer = resolvePointer(item, m.answer);
    if (!id.found || typeof id.value !== "string")
      issues.push({ path: `payload ${m.items}/${i}${m.id}`, message: "each item needs a string question id" });
    else if (!answer.found) issues.push({ path: `payload ${m.items}/${i}${m.answer}`, message: "each item needs an answer" });
    else out[id.value] = answer.value;
  });
  return out;
}

/** Into every manual answering model of the config, or the one named `model_id`. */
function placeAnswers(
  config: Record<string, unknown>,
  answers: Record<string, unknown>,
  modelId: string | undefined,
  issues: FieldIssue[],
) {
  const models = Array.isArray(config.answering_models) ? (config.answering_models as Record<string, unknown>[]) : [];
  const targets = models.filter((x) => x && x.interface === "manual" && (modelId === undefined || (x.id ?? "manual") === modelId));
  if (targets.length === 0) {
    issues.push({
      path: "mapping.manual_answers",
      message: `the config has no manual answering model${modelId ? ` with id ${JSON.stringify(modelId)}` : ""} to take the answers`,
    });
  }
  for (const t of targets) t.manual_answers = { ...(t.manual_answers as object | undefined), ...answers };
}
