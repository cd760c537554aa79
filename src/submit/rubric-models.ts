/**
 * Model configs inside a benchmark's rubrics: compound traits' judge `provider`s (a config or a
 * list of them, on the judge, its units and post-hoc extractors) and agentic traits'
 * `model_override`. Submit checks them like the answering and parsing models (secret set, key
 * sent only where it may go), so a run does not start with traits that can only fail.
 */
import { ModelConfig } from "../schemas/model-config";

const MODEL_KEYS = new Set(["provider", "model_override"]);

export interface ModelAt {
  /** Field path, as issues name it (`benchmark.questions[0].rubric.compound_traits[0].config.provider`). */
  path: string;
  model: ModelConfig;
}

/** The models of the global rubric and of the rubrics of the questions `selected` keeps. */
export function modelsInRubrics(
  benchmark: { rubric?: unknown; questions: readonly { id: string; rubric?: unknown }[] },
  selected: (questionId: string) => boolean = () => true,
): ModelAt[] {
  const found: ModelAt[] = [];
  if (benchmark.rubric != null) walk(benchmark.rubric, "benchmark.rubric", found);
  benchmark.questions.forEach((q, i) => q.rubric != null && selected(q.id) && walk(q.rubric, `benchmark.questions[${i}].rubric`, found));
  return found;
}

function walk(value: unknown, path: string, found: ModelAt[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => walk(v, `${path}[${i}]`, found));
    return;
  }
  if (value === null || typeof value !== "object") return;
  for (const [key, v] of Object.entries(value)) {
    const at = `${path}.${key}`;
    if (MODEL_KEYS.has(key)) {
      // A list of providers is a pool; anything that is not a model config is left to its own schema.
      const candidates = Array.isArray(v) ? v.map((m, i) => [m, `${at}[${i}]`] as const) : [[v, at] as const];
      for (const [m, p] of candidates) {
        const parsed = ModelConfig.safeParse(m);
        if (parsed.success) found.push({ path: p, model: parsed.data });
      }
    } else walk(v, at, found);
  }
}
