/**
 * Deep judgment of one rubric trait: excerpts (fuzzy-validated against the response, retried with
 * feedback) → optional search validation → reasoning → score from the Conclusion.
 *
 * A trait whose excerpts never validate is `excerpt_validation_failed` (→ stage 12 autofail);
 * it is still reasoned about and scored so the result shows what the judge concluded. A judge
 * call that fails leaves the trait's score null with the error: the judge failing is not the
 * answer being wrong, so it never lands in traits_without_valid_excerpts.
 */
import { z } from "zod";
import type { LlmError, ModelPort, Usage } from "../../llm/port";
import type { Excerpt, HallucinationRisk, SearchPort } from "../../core-shared/evidence";
import { excerptSimilarity } from "../../core-shared/fuzzy";
import { assessHallucination } from "../../core-shared/hallucination";
import { addUsage } from "../../core-shared/usage";
import type { ResolvedTraitConfig } from "./config";
import { conclusionOf, type DjTrait, excerptFeedback, excerptMessages, reasoningMessages, scoreMessages } from "./prompts";

export type DjStage = "excerpt_extraction" | "hallucination_assessment" | "reasoning_generation" | "score_extraction";

export interface TraitMetadata {
  stages_completed: DjStage[];
  model_calls: number;
  had_excerpts: boolean;
  excerpt_retry_count: number;
  excerpt_validation_failed: boolean;
}

export interface TraitRisk {
  overall_risk: HallucinationRisk;
  per_excerpt_risks: HallucinationRisk[];
}

export interface TraitOutcome {
  score: number | boolean | null;
  excerpts: Excerpt[] | null;
  reasoning: string | null;
  risk: TraitRisk | null;
  metadata: TraitMetadata;
  usage: Usage | undefined;
  warnings: string[];
  /** The judge call that stopped this trait (score is then null). */
  error?: LlmError;
}

export interface TraitContext {
  question: string;
  response: string;
  instructions?: string;
  search?: SearchPort;
  callSite?: string;
}

const ExcerptsOutput = z.object({
  excerpts: z.array(z.object({ text: z.string().nullish(), confidence: z.string().nullish() })).nullish(),
});
const EXCERPTS_JSON = {
  type: "object",
  properties: {
    excerpts: {
      type: "array",
      items: {
        type: "object",
        properties: { text: { type: "string" }, confidence: { enum: ["high", "medium", "low"] } },
        required: ["text", "confidence"],
      },
    },
  },
  required: ["excerpts"],
};

export async function deepJudgeTrait(judge: ModelPort, t: DjTrait, cfg: ResolvedTraitConfig, ctx: TraitContext): Promise<TraitOutcome> {
  const out: TraitOutcome = {
    score: null,
    excerpts: null,
    reasoning: null,
    risk: null,
    metadata: { stages_completed: [], model_calls: 0, had_excerpts: false, excerpt_retry_count: 0, excerpt_validation_failed: false },
    usage: undefined,
    warnings: [],
  };
  const take = (u: Usage) => {
    out.usage = addUsage(out.usage, u);
    out.metadata.model_calls++;
  };
  if (cfg.excerpt_enabled) {
    const ex = await extractTraitExcerpts(judge, t, cfg, ctx, take);
    if (!ex.ok) return { ...out, error: ex.error };
    out.excerpts = ex.excerpts;
    out.metadata.excerpt_retry_count = ex.retries;
    out.metadata.had_excerpts = ex.excerpts.length > 0;
    out.metadata.excerpt_validation_failed = ex.excerpts.length === 0;
    out.metadata.stages_completed.push("excerpt_extraction");
    if (cfg.search_enabled && ex.excerpts.length > 0) await searchValidate(judge, t, ctx, out, take);
  }
  const reasoning = await judge.chat({
    messages: reasoningMessages(ctx.question, ctx.response, t, out.excerpts, ctx.instructions),
    call_site: `${ctx.callSite ?? "dj_rubric"}/${t.name}/reasoning`,
  });
  if (!reasoning.ok) {
    out.warnings.push(`deep judgment reasoning failed for trait ${t.name}: ${reasoning.error.message}`);
    return { ...out, error: reasoning.error };
  }
  take(reasoning.value.usage);
  out.reasoning = reasoning.value.text;
  out.metadata.stages_completed.push("reasoning_generation");
  out.score = await extractScore(judge, t, out.reasoning, ctx, take, out.warnings);
  out.metadata.stages_completed.push("score_extraction");
  return out;
}

async function extractTraitExcerpts(
  judge: ModelPort,
  t: DjTrait,
  cfg: ResolvedTraitConfig,
  ctx: TraitContext,
  take: (u: Usage) => void,
): Promise<{ ok: true; excerpts: Excerpt[]; retries: number } | { ok: false; error: LlmError }> {
  const messages = excerptMessages(ctx.question, ctx.response, t, cfg.max_excerpts, ctx.instructions);
  for (let retries = 0; ; retries++) {
    const res = await judge.structured({
      messages,
      schemaName: "TraitExcerptsOutput",
      jsonSchema: EXCERPTS_JSON,
      schema: ExcerptsOutput,
      call_site: `${ctx.callSite ?? "dj_rubric"}/${t.name}/excerpts${retries ? `/retry${retries}` : ""}`,
    });
    if (!res.ok) return { ok: false, error: res.error };
    take(res.value.usage);
    const kept: Excerpt[] = [];
    const rejected: string[] = [];
    for (const e of res.value.value.excerpts ?? []) {
      const text = e.text ?? "";
      if (!text.trim()) continue;
      const similarity_score = excerptSimilarity(text, ctx.response);
      if (similarity_score >= cfg.fuzzy_match_threshold) kept.push({ text, confidence: confidenceOf(e.confidence), similarity_score });
      else rejected.push(text);
    }
    if (kept.length > 0 || retries >= cfg.excerpt_retry_attempts) return { ok: true, excerpts: kept.slice(0, cfg.max_excerpts), retries };
    messages.push({ role: "assistant", content: res.value.raw }, excerptFeedback(rejected, cfg.fuzzy_match_threshold));
  }
}

function confidenceOf(c: string | null | undefined): Excerpt["confidence"] {
  return c === "high" || c === "medium" || c === "low" ? c : "low";
}

/** A search or assessment failure leaves the trait without a risk assessment, never failed. */
async function searchValidate(judge: ModelPort, t: DjTrait, ctx: TraitContext, out: TraitOutcome, take: (u: Usage) => void) {
  if (!ctx.search) {
    out.warnings.push(`deep judgment search requested for trait ${t.name} but no search tool is configured; skipped`);
    return;
  }
  const res = await assessHallucination(judge, ctx.search, ctx.question, { [t.name]: out.excerpts! }, ctx.instructions);
  out.warnings.push(...res.warnings);
  if (!res.ok) {
    out.warnings.push(`deep judgment hallucination assessment failed for trait ${t.name}: ${res.error.message}`);
    return;
  }
  take(res.usage);
  out.excerpts = res.excerpts[t.name] ?? out.excerpts;
  const per = (out.excerpts ?? []).map((e) => e.hallucination_risk ?? "high");
  out.risk = { overall_risk: res.risk[t.name] ?? "high", per_excerpt_risks: per };
  out.metadata.stages_completed.push("hallucination_assessment");
}

const ScoreOutput = z.object({ score: z.union([z.boolean(), z.number()]) });

/** Structured extraction; if that call fails, the Conclusion is read directly (Karenina's fallback). */
async function extractScore(
  judge: ModelPort,
  t: DjTrait,
  reasoning: string,
  ctx: TraitContext,
  take: (u: Usage) => void,
  warnings: string[],
) {
  const jsonSchema = {
    type: "object",
    properties: { score: t.kind === "boolean" ? { type: "boolean" } : { type: "integer" } },
    required: ["score"],
  };
  const res = await judge.structured({
    messages: scoreMessages(t, reasoning),
    schemaName: "TraitScore",
    jsonSchema,
    schema: ScoreOutput,
    call_site: `${ctx.callSite ?? "dj_rubric"}/${t.name}/score`,
  });
  if (res.ok) {
    take(res.value.usage);
    return normalise(t, res.value.value.score);
  }
  warnings.push(`deep judgment score extraction failed for trait ${t.name} (${res.error.message}); read from the conclusion`);
  return scoreFromConclusion(t, conclusionOf(reasoning));
}

function normalise(t: DjTrait, v: boolean | number): number | boolean | null {
  if (t.kind === "boolean") return typeof v === "boolean" ? v : v !== 0;
  const n = typeof v === "boolean" ? (v ? t.max_score : t.min_score) : Math.round(v);
  return Math.min(t.max_score, Math.max(t.min_score, n));
}

export function scoreFromConclusion(t: DjTrait, conclusion: string): number | boolean | null {
  if (t.kind === "score") {
    const m = /-?\d+/.exec(conclusion);
    return m ? normalise(t, Number(m[0])) : null;
  }
  if (/\b(not|no|fails?|doesn't|does not|lacks?|false)\b/i.test(conclusion)) return false;
  if (/\b(yes|meets|satisf|true|pass)/i.test(conclusion)) return true;
  return null;
}
