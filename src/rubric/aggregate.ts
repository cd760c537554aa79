/**
 * Per-trait aggregates for the run summary: each result contributes one observation per trait,
 * and each model pair reports, per trait, the mean score (numeric traits) and the pass rate
 * (boolean traits; compound traits have both). A trait whose judge failed (null) is counted in
 * `errored`, never as a fail. Literal traits (class indexes) have no mean or pass rate and are
 * left out, as are their labels; metric traits contribute one score per metric (`trait.metric`).
 */
import type { VerificationResult } from "../schemas/result";

export interface TraitObservation {
  trait: string;
  /** Numeric value (booleans are not scores); null when the trait has none. */
  score: number | null;
  /** Boolean outcome; null when the trait has none. */
  pass: boolean | null;
  /** The judge failed: neither score nor pass. */
  errored: boolean;
}

export interface TraitAggregate {
  /** Observations with a value. */
  n: number;
  errored: number;
  mean_score: number | null;
  pass_rate: number | null;
}

function observe(trait: string, v: unknown): TraitObservation {
  if (v === null || v === undefined) return { trait, score: null, pass: null, errored: true };
  if (typeof v === "boolean") return { trait, score: null, pass: v, errored: false };
  return { trait, score: typeof v === "number" ? v : null, pass: null, errored: false };
}

export function traitObservations(result: Pick<VerificationResult, "rubric">): TraitObservation[] {
  const r = result.rubric;
  if (!r?.rubric_evaluation_performed) return [];
  const out: TraitObservation[] = [];
  const labels = r.llm_trait_labels ?? {};
  for (const [t, v] of Object.entries(r.llm_trait_scores ?? {})) if (!(t in labels)) out.push(observe(t, v));
  for (const map of [r.regex_trait_scores, r.callable_trait_scores, r.agentic_trait_scores]) {
    for (const [t, v] of Object.entries(map ?? {})) out.push(observe(t, v));
  }
  for (const [t, metrics] of Object.entries(r.metric_trait_scores ?? {})) {
    for (const [m, v] of Object.entries(metrics)) out.push(observe(`${t}.${m}`, v));
  }
  for (const [t, v] of Object.entries(r.compound_trait_scores ?? {})) {
    const pass = (r.compound_trait_traces?.[t] as { pass?: boolean | null } | undefined)?.pass ?? null;
    out.push(v === null ? observe(t, null) : { trait: t, score: v, pass, errored: false });
  }
  return out;
}

export function aggregateTraits(rows: readonly TraitObservation[]): Record<string, TraitAggregate> {
  const acc = new Map<string, { n: number; errored: number; sum: number; scored: number; passed: number; judged: number }>();
  for (const o of rows) {
    const a = acc.get(o.trait) ?? { n: 0, errored: 0, sum: 0, scored: 0, passed: 0, judged: 0 };
    if (o.errored) a.errored++;
    else a.n++;
    if (o.score !== null) {
      a.sum += o.score;
      a.scored++;
    }
    if (o.pass !== null) {
      a.judged++;
      if (o.pass) a.passed++;
    }
    acc.set(o.trait, a);
  }
  return Object.fromEntries(
    [...acc.entries()]
      .sort(([x], [y]) => x.localeCompare(y))
      .map(([t, a]) => [
        t,
        { n: a.n, errored: a.errored, mean_score: a.scored ? a.sum / a.scored : null, pass_rate: a.judged ? a.passed / a.judged : null },
      ]),
  );
}
