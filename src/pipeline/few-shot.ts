/**
 * Few-shot prompting (Karenina's FewShotConfig): which examples precede a question, and how the
 * answering prompt shows them. Pure and deterministic: k-shot sampling is seeded by the question
 * id, so every delivery and every replicate of a job sees the same examples.
 */
import { md5Hex } from "./md5";
import { mulberry32 } from "./random";

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

export interface FewShotConfig {
  enabled?: boolean;
  global_mode?: FewShotMode;
  global_k?: number;
  question_configs?: Record<string, QuestionFewShotConfig>;
  global_external_examples?: FewShotExample[];
}

export function resolveFewShotExamples(
  config: FewShotConfig | null | undefined,
  questionId: string,
  available: readonly FewShotExample[] | null | undefined,
): FewShotExample[] {
  if (!config || config.enabled === false) return [];
  const own = config.question_configs?.[questionId] ?? {};
  const inherit = !own.mode || own.mode === "inherit";
  const mode: FewShotMode = inherit ? (config.global_mode ?? "all") : (own.mode as FewShotMode);
  if (mode === "none") return [];
  const k = (inherit ? undefined : own.k) ?? config.global_k ?? 3;
  const pool = [...(available ?? [])];
  const indexOf = (ref: ExampleRef) =>
    typeof ref === "number" ? (ref >= 0 && ref < pool.length ? ref : -1) : pool.findIndex((e) => md5Hex(e.question) === ref);

  let chosen: number[] = [];
  if (mode === "all") chosen = pool.map((_, i) => i);
  else if (mode === "k-shot") chosen = pool.length <= k ? pool.map((_, i) => i) : sampleIndices(pool.length, k, questionId);
  else if (mode === "custom") chosen = (own.selected_examples ?? []).map(indexOf).filter((i) => i >= 0);

  const excluded = new Set((own.excluded_examples ?? []).map(indexOf).filter((i) => i >= 0));
  return [
    ...chosen.filter((i) => !excluded.has(i)).map((i) => pool[i]!),
    ...(own.external_examples ?? []),
    ...(config.global_external_examples ?? []),
  ];
}

/** "Question: …/Answer: …" blocks, then the question itself (Karenina's generation format). */
export function formatFewShotPrompt(question: string, examples: readonly FewShotExample[]): string {
  if (examples.length === 0) return question;
  const blocks = examples.map((e) => `Question: ${e.question}\nAnswer: ${e.answer}\n`);
  return `${blocks.join("\n")}\nQuestion: ${question}\nAnswer:`;
}

/** k distinct indices out of n, in pool order, from a PRNG seeded by the question id. */
function sampleIndices(n: number, k: number, seedText: string): number[] {
  const rand = mulberry32(Number.parseInt(md5Hex(seedText).slice(0, 8), 16) & 0x7fffffff);
  const idx = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(rand() * (n - i));
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  return idx.slice(0, k).sort((a, b) => a - b);
}

