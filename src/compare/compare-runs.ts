/**
 * Two runs compared result by result (pure). Results pair on (question, answering model, parsing
 * model, replicate); with `models` the answering model of run A named `a` pairs with the one of run
 * B named `b` (different ids, e.g. a new model against the old), on (question, parsing, replicate);
 * with `judges` likewise run A's parsing model `a` pairs with run B's `b` (a re-score's new judge
 * against the parent's, on the same answers), and the pairs and flips name A's as `a_parsing_model`.
 *
 * - A pair counts only when both verdicts are about the answer (pass or fail): an `error` (the
 *   judge or transport failed) or `no_verdict` on either side is `excluded`, never a flip.
 * - Per (A answering, B answering, parsing) model pair: pass rates over the paired results, the
 *   delta B − A, the flips each way and McNemar's exact two-sided p over them; `significant` is
 *   p < alpha.
 * - Per question: the results whose verdict flipped, each way.
 */
import type { Verdict } from "../pipeline/verdict";
import { mcnemarExact } from "./mcnemar";

export const ALPHA = 0.05;

export interface VerdictRow {
  question_id: string;
  answering_model: string;
  parsing_model: string;
  replicate: number;
  verdict: Verdict;
}

export interface ModelPairComparison {
  a_answering_model: string;
  b_answering_model: string;
  /** Run B's parsing model (and A's, unless `a_parsing_model` says otherwise). */
  parsing_model: string;
  /** Run A's parsing model, when judges are compared (it differs from `parsing_model`). */
  a_parsing_model?: string;
  /** Results graded (pass or fail) in both runs. */
  paired: number;
  /** Results in both runs where either side is error or no_verdict. */
  excluded: number;
  a_passed: number;
  b_passed: number;
  a_pass_rate: number | null;
  b_pass_rate: number | null;
  /** b_pass_rate − a_pass_rate. */
  delta: number | null;
  pass_to_fail: number;
  fail_to_pass: number;
  p_value: number;
  significant: boolean;
}

export interface Flip {
  a_answering_model: string;
  b_answering_model: string;
  parsing_model: string;
  a_parsing_model?: string;
  replicate: number;
  a: "pass" | "fail";
  b: "pass" | "fail";
}

export interface QuestionFlips {
  question_id: string;
  pass_to_fail: number;
  fail_to_pass: number;
  flips: Flip[];
}

const SEP = "\u0000";
const graded = (v: Verdict): v is "pass" | "fail" => v === "pass" || v === "fail";

export class RunComparer {
  private readonly a = new Map<string, VerdictRow>();
  private readonly matched = new Set<string>();
  private readonly pairs = new Map<string, ModelPairComparison>();
  private readonly questions = new Map<string, QuestionFlips>();
  private onlyInB = 0;

  constructor(
    private readonly models?: { a: string; b: string },
    private readonly judges?: { a: string; b: string },
  ) {}

  /** The pairing key; null for a row of a model or judge that takes no part. A named pair's ids are not in it. */
  private key(r: VerdictRow, side: "a" | "b"): string | null {
    if (this.models && r.answering_model !== this.models[side]) return null;
    if (this.judges && r.parsing_model !== this.judges[side]) return null;
    return [r.question_id, this.models ? "" : r.answering_model, this.judges ? "" : r.parsing_model, r.replicate].join(SEP);
  }

  /** Every row of run A first, then addB for run B's. */
  addA(r: VerdictRow): void {
    const k = this.key(r, "a");
    if (k !== null) this.a.set(k, r);
  }

  addB(r: VerdictRow): void {
    const k = this.key(r, "b");
    if (k === null) return;
    const a = this.a.get(k);
    if (!a) {
      this.onlyInB++;
      return;
    }
    this.matched.add(k);
    const pairKey = [a.answering_model, r.answering_model, a.parsing_model, r.parsing_model].join(SEP);
    const judgeA = a.parsing_model === r.parsing_model ? {} : { a_parsing_model: a.parsing_model };
    let p = this.pairs.get(pairKey);
    if (!p) {
      p = {
        a_answering_model: a.answering_model,
        b_answering_model: r.answering_model,
        parsing_model: r.parsing_model,
        ...judgeA,
        paired: 0,
        excluded: 0,
        a_passed: 0,
        b_passed: 0,
        a_pass_rate: null,
        b_pass_rate: null,
        delta: null,
        pass_to_fail: 0,
        fail_to_pass: 0,
        p_value: 1,
        significant: false,
      };
      this.pairs.set(pairKey, p);
    }
    if (!graded(a.verdict) || !graded(r.verdict)) {
      p.excluded++;
      return;
    }
    p.paired++;
    if (a.verdict === "pass") p.a_passed++;
    if (r.verdict === "pass") p.b_passed++;
    if (a.verdict === r.verdict) return;
    const down = a.verdict === "pass";
    if (down) p.pass_to_fail++;
    else p.fail_to_pass++;
    let q = this.questions.get(r.question_id);
    if (!q) {
      q = { question_id: r.question_id, pass_to_fail: 0, fail_to_pass: 0, flips: [] };
      this.questions.set(r.question_id, q);
    }
    if (down) q.pass_to_fail++;
    else q.fail_to_pass++;
    q.flips.push({
      a_answering_model: a.answering_model,
      b_answering_model: r.answering_model,
      parsing_model: r.parsing_model,
      ...judgeA,
      replicate: r.replicate,
      a: a.verdict,
      b: r.verdict,
    });
  }

  modelPairs(alpha = ALPHA): ModelPairComparison[] {
    return [...this.pairs.values()]
      .map((p) => {
        const a_pass_rate = p.paired ? p.a_passed / p.paired : null;
        const b_pass_rate = p.paired ? p.b_passed / p.paired : null;
        const p_value = mcnemarExact(p.pass_to_fail, p.fail_to_pass);
        return {
          ...p,
          a_pass_rate,
          b_pass_rate,
          delta: a_pass_rate === null || b_pass_rate === null ? null : b_pass_rate - a_pass_rate,
          p_value,
          significant: p_value < alpha,
        };
      })
      .sort(
        (x, y) =>
          cmp(x.a_answering_model, y.a_answering_model) ||
          cmp(x.b_answering_model, y.b_answering_model) ||
          cmp(x.parsing_model, y.parsing_model),
      );
  }

  /** Questions with at least one flip, by question id. */
  questionFlips(): QuestionFlips[] {
    return [...this.questions.values()].sort((x, y) => cmp(x.question_id, y.question_id));
  }

  unmatched(): { only_in_a: number; only_in_b: number } {
    return { only_in_a: this.a.size - this.matched.size, only_in_b: this.onlyInB };
  }
}

const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/** A significant drop: some model pair's pass rate fell with p < alpha. */
export const isRegression = (pairs: readonly ModelPairComparison[]) => pairs.some((p) => p.significant && p.delta !== null && p.delta < 0);
