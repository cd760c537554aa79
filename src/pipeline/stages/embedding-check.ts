/**
 * Stage 9 — EmbeddingCheck. Runs only when the field part of verification failed: embeds the
 * ground truth and the parsed answer (JSON of each) through the model port, and when their cosine
 * similarity reaches the threshold asks the judge whether they are semantically equivalent. YES
 * overrides the FIELD verdict to pass; a failed regex check still fails the answer.
 *
 * Model and threshold come from the run's config (`embedding_check_model`, `embedding_check_provider`,
 * `embedding_check_threshold`), resolved by the edge into `ports.embedder` / `ports.embedderModel`
 * (src/llm/embedding-model.ts) — never from the environment, unlike Karenina. Template fields
 * verified by SemanticMatch are decided here: their primitive cannot decide alone.
 * A failing embedding or judge call is non-fatal: a warning and no override.
 */
import { groundTruthOf } from "../../templates";
import { buildEquivalenceMessages, isYes } from "../prompts/embedding";
import { checkFailed, logOverride } from "../overrides";
import type { PipelineState, Stage } from "../types";
import { addUsage } from "../../core-shared/usage";

function fieldPartFailed(state: PipelineState): boolean {
  const v = state.verification;
  return !!v && (v.field_verification_result ?? v.verify_result) === false;
}

export const embeddingCheck: Stage = {
  name: "embedding_check",
  shouldRun: (state, input) =>
    input.settings.embedding_check?.enabled === true && !state.error && !state.autofail && fieldPartFailed(state),
  async run(state, input, ports) {
    const settings = input.settings.embedding_check!;
    const gt = JSON.stringify(groundTruthOf(input.question.template!));
    const answer = JSON.stringify(state.parsed ?? {});
    const embedder = ports.embedder ?? ports.judge;
    const model = ports.embedderModel ?? settings.model;
    const emb = await embedder.embed({ inputs: [gt, answer], model });
    if (!emb.ok || emb.value.vectors.length !== 2) {
      const why = emb.ok ? `expected 2 vectors, got ${emb.value.vectors.length}` : `${emb.error.kind}: ${emb.error.message}`;
      return {
        ...checkFailed(ports, state, "embedding_check_failed", `embedding check failed (${why})`, emb.ok ? undefined : emb.error),
        embedding: { performed: false, similarity_score: null, override_applied: false, model_used: model },
      };
    }
    const similarity = Math.max(0, Math.min(1, cosine(emb.value.vectors[0]!, emb.value.vectors[1]!)));
    const usage = { ...state.usage, embedding_check: emb.value.usage };
    const base = { performed: true, similarity_score: similarity, model_used: model };
    if (similarity < settings.threshold) return { usage, embedding: { ...base, override_applied: false } };

    const reply = await ports.judge.chat({
      messages: buildEquivalenceMessages(input.question.question, gt, answer),
      call_site: "embedding_check/equivalence",
    });
    if (!reply.ok) {
      return {
        usage,
        ...checkFailed(
          ports,
          state,
          "embedding_check_failed",
          `embedding check: the equivalence judge failed (${reply.error.kind}: ${reply.error.message})`,
          reply.error,
        ),
        embedding: { ...base, override_applied: false },
      };
    }
    usage.embedding_check = addUsage(usage.embedding_check, reply.value.usage);
    if (!isYes(reply.value.text)) return { usage, embedding: { ...base, override_applied: false } };

    const v = state.verification!;
    const verdict = v.regex_overall_success !== false;
    logOverride(
      ports,
      input,
      "embedding_check",
      verdict,
      `semantically equivalent to the ground truth (similarity ${similarity.toFixed(3)})`,
    );
    return {
      usage,
      embedding: { ...base, override_applied: true },
      verification: { ...v, field_verification_result: true, verify_result: verdict },
    };
  },
};

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
