/**
 * Few-shot prompting (Karenina's FewShotConfig): which examples precede a question, and how the
 * answering prompt shows them. Pure and deterministic: k-shot sampling is seeded by the question
 * id, so every delivery and every replicate of a job sees the same examples.
 *
 * Two config shapes are accepted: Karenina's current one (`source`, `pool_mode`, `pool_k`,
 * `question_configs`, `global_examples`; schemas/config/models.py:254) and the older one (`enabled`,
 * `global_mode`, `global_k`, `global_external_examples`, per-question `external_examples`, mode
 * `none`). k-shot picks exactly Karenina's examples, in Karenina's order (models.py:472-473):
 * `random.seed(int(md5(question_id), 16) & 0x7FFFFFFF)` then `random.sample(available, k)`,
 * through a port of CPython's generator (python-random.ts).
 */
import { md5Hex } from "../lib/md5";
import { PythonRandom } from "./python-random";

export type FewShotMode = "all" | "k-shot" | "custom" | "none";
export interface FewShotExample {
  question: string;
  answer: string;
}
/** An example named by its index in the question's list or the MD5 of its question text. */
export type ExampleRef = number | string;

export interface QuestionFewShotConfig {
  mode?: FewShotMode | "inherit";
  k?: number | null;
  selected_examples?: ExampleRef[] | null;
  external_examples?: FewShotExample[] | null;
  excluded_examples?: ExampleRef[] | null;
}

/** Karenina's current shape. */
export interface KareninaFewShotConfig {
  source?: "disabled" | "question_pool" | "global" | "both";
  pool_mode?: Exclude<FewShotMode, "none">;
  pool_k?: number;
  question_configs?: Record<string, QuestionFewShotConfig>;
  global_examples?: FewShotExample[];
}

/** The older shape. */
export interface LegacyFewShotConfig {
  enabled?: boolean;
  global_mode?: FewShotMode;
  global_k?: number;
  question_configs?: Record<string, QuestionFewShotConfig>;
  global_external_examples?: FewShotExample[];
}

export type FewShotConfig = KareninaFewShotConfig | LegacyFewShotConfig;

/** Both shapes as one: which sources are on, the pool's mode and k, and the global examples. */
type Normalised = Required<Omit<KareninaFewShotConfig, "pool_mode">> & { pool_mode: FewShotMode };

function normalise(config: FewShotConfig): Normalised {
  if ("enabled" in config || "global_mode" in config || "global_k" in config || "global_external_examples" in config) {
    const c = config as LegacyFewShotConfig;
    return {
      source: c.enabled === false ? "disabled" : "both",
      pool_mode: c.global_mode ?? "all",
      pool_k: c.global_k ?? 3,
      question_configs: c.question_configs ?? {},
      global_examples: c.global_external_examples ?? [],
    };
  }
  const c = config as KareninaFewShotConfig;
  return {
    source: c.source ?? "both",
    pool_mode: c.pool_mode ?? "all",
    pool_k: c.pool_k ?? 3,
    question_configs: c.question_configs ?? {},
    global_examples: c.global_examples ?? [],
  };
}

export function resolveFewShotExamples(
  config: FewShotConfig | null | undefined,
  questionId: string,
  available: readonly FewShotExample[] | null | undefined,
): FewShotExample[] {
  if (!config) return [];
  const c = normalise(config);
  if (c.source === "disabled") return [];
  const own = c.question_configs[questionId] ?? {};
  const inherit = !own.mode || own.mode === "inherit";
  const mode: FewShotMode = inherit ? c.pool_mode : (own.mode as FewShotMode);
  if (mode === "none") return [];
  // Karenina's get_effective_config: an inheriting question takes pool_k, its own k is ignored.
  const k = (inherit ? undefined : own.k) ?? c.pool_k;
  const pool = c.source === "global" ? [] : [...(available ?? [])];
  const indexOf = (ref: ExampleRef) =>
    typeof ref === "number" ? (ref >= 0 && ref < pool.length ? ref : -1) : pool.findIndex((e) => md5Hex(e.question) === ref);

  let chosen: number[] = [];
  if (mode === "all") chosen = pool.map((_, i) => i);
  else if (mode === "k-shot") chosen = pool.length <= k ? pool.map((_, i) => i) : kareninaSample(pool.length, k, questionId);
  else if (mode === "custom") chosen = (own.selected_examples ?? []).map(indexOf).filter((i) => i >= 0);

  const excluded = new Set((own.excluded_examples ?? []).map(indexOf).filter((i) => i >= 0));
  return [
    ...chosen.filter((i) => !excluded.has(i)).map((i) => pool[i]!),
    ...(c.source === "global" ? [] : (own.external_examples ?? [])),
    ...(c.source === "question_pool" ? [] : c.global_examples),
  ];
}

/** The seed Karenina gives `random.seed` for a question: the low 31 bits of the id's MD5. */
export function kareninaSeed(questionId: string): number {
  return Number(BigInt(`0x${md5Hex(questionId)}`) & 0x7fffffffn);
}

/** Indices Karenina's `random.sample(available_examples, k)` picks, in its order. */
function kareninaSample(n: number, k: number, questionId: string): number[] {
  return new PythonRandom(kareninaSeed(questionId)).sample(
    Array.from({ length: n }, (_, i) => i),
    k,
  );
}

/** "Question: …/Answer: …" blocks, then the question itself (Karenina's generation format). */
export function formatFewShotPrompt(question: string, examples: readonly FewShotExample[]): string {
  if (examples.length === 0) return question;
  const blocks = examples.map((e) => `Question: ${e.question}\nAnswer: ${e.answer}\n`);
  return `${blocks.join("\n")}\nQuestion: ${question}\nAnswer:`;
}
