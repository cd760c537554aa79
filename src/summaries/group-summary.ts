/**
 * Results grouped one way (pair, question, replicate, answering model, parsing model, failure
 * category or rubric trait) with counts, pass rate, tokens, cost and pass@k / pass^k per group
 * (pure; the edge feeds it the run's D1 rows page by page).
 *
 * Rules, the same for every grouping:
 * - pass_rate = passed / (passed + failed): `error` results (the judge or transport failed) and
 *   `no_verdict` (rubric_only) say nothing about the answer and are left out, as in the run view.
 * - pass@k / pass^k (pass-at-k.ts) are per item — a (question, answering, parsing) triple across
 *   its replicates, n = its pass + fail results (never its errors), c = its passes — then
 *   averaged over the group's items that have n ≥ k; k = 1..replicate_count.
 * - For `trait` a result counts in each trait it was scored on; the item's tries are that trait's
 *   boolean outcomes (a score trait has none, so its pass@k is null), and `trait` adds the
 *   trait's own aggregate (n, errored, mean_score, pass_rate).
 * - Tokens and cost: a usage row (coordinator/cost.ts) is counted once per group: an answer read
 *   by several parsing models is one row (keyed by its job), so a group holding several of its
 *   results pays it once, and each group that holds one of them shows it. Cost is null as soon as
 *   one counted row has no price (unknown is never shown as 0).
 */
import { addUsd } from "../llm/prices";
import type { Verdict } from "../pipeline/verdict";
import { aggregateTraits, type TraitAggregate, type TraitObservation } from "../rubric/aggregate";
import type { GroupBy } from "../schemas/api";
import { meanOverItems, passAtK, passHatK } from "./pass-at-k";

export interface SummaryRow {
  question_id: string;
  answering_model: string;
  parsing_model: string;
  replicate: number;
  verdict: Verdict;
  failure_category: string | null;
  /** The result's usage rows, priced (coordinator/cost.ts usageRows). */
  usage: readonly { key: string; input_tokens: number; output_tokens: number; cost_usd: number | null }[];
  /** The result's rubric trait observations; read only for `trait`. */
  traits?: readonly TraitObservation[];
}

export type GroupKey = Record<string, string | number | null>;

export interface GroupSummary {
  group: GroupKey;
  results: number;
  passed: number;
  failed: number;
  errored: number;
  no_verdict: number;
  pass_rate: number | null;
  tokens: { input_tokens: number; output_tokens: number; total_tokens: number };
  cost_usd: number | null;
  pass_at_k: Record<string, number | null>;
  pass_hat_k: Record<string, number | null>;
  /** Only for group_by=trait. */
  trait?: TraitAggregate;
}

interface Acc {
  group: GroupKey;
  counts: Record<Verdict, number>;
  items: Map<string, { n: number; c: number }>;
  usageKeys: Set<string>;
  input: number;
  output: number;
  cost: number | null;
  observations: TraitObservation[];
}

/** Accumulates rows in any number of pages; `summaries()` gives the sorted groups. */
export class GroupSummarizer {
  private readonly groups = new Map<string, Acc>();
  constructor(
    private readonly groupBy: GroupBy,
    private readonly replicateCount: number,
  ) {}

  add(row: SummaryRow): void {
    const item = `${row.question_id}\u0000${row.answering_model}\u0000${row.parsing_model}`;
    if (this.groupBy === "trait") {
      for (const obs of row.traits ?? []) {
        const acc = this.acc({ trait: obs.trait });
        this.count(acc, row, item, obs.pass === null ? null : obs.pass);
        acc.observations.push(obs);
      }
      return;
    }
    const graded = row.verdict === "pass" || row.verdict === "fail" ? row.verdict === "pass" : null;
    this.count(this.acc(groupKey(this.groupBy, row)), row, item, graded);
  }

  summaries(): GroupSummary[] {
    return [...this.groups.values()].sort((a, b) => compareKeys(a.group, b.group)).map((acc) => this.view(acc));
  }

  private acc(group: GroupKey): Acc {
    const id = JSON.stringify(group);
    let acc = this.groups.get(id);
    if (!acc) {
      acc = {
        group,
        counts: { pass: 0, fail: 0, error: 0, no_verdict: 0 },
        items: new Map(),
        usageKeys: new Set(),
        input: 0,
        output: 0,
        cost: 0,
        observations: [],
      };
      this.groups.set(id, acc);
    }
    return acc;
  }

  /** `graded`: true / false for a try that passed / failed, null for one that counts in no n. */
  private count(acc: Acc, row: SummaryRow, item: string, graded: boolean | null): void {
    acc.counts[row.verdict]++;
    if (graded !== null) {
      const it = acc.items.get(item) ?? { n: 0, c: 0 };
      it.n++;
      if (graded) it.c++;
      acc.items.set(item, it);
    }
    for (const u of row.usage) {
      if (acc.usageKeys.has(u.key)) continue;
      acc.usageKeys.add(u.key);
      acc.input += u.input_tokens;
      acc.output += u.output_tokens;
      acc.cost = addUsd(acc.cost, u.cost_usd);
    }
  }

  private view(acc: Acc): GroupSummary {
    const { pass: passed, fail: failed, error: errored, no_verdict } = acc.counts;
    const items = [...acc.items.values()];
    const out: GroupSummary = {
      group: acc.group,
      results: passed + failed + errored + no_verdict,
      passed,
      failed,
      errored,
      no_verdict,
      pass_rate: passed + failed > 0 ? passed / (passed + failed) : null,
      tokens: { input_tokens: acc.input, output_tokens: acc.output, total_tokens: acc.input + acc.output },
      cost_usd: acc.cost,
      pass_at_k: meanOverItems(items, this.replicateCount, passAtK),
      pass_hat_k: meanOverItems(items, this.replicateCount, passHatK),
    };
    if (this.groupBy === "trait") out.trait = aggregateTraits(acc.observations)[String(acc.group.trait)];
    return out;
  }
}

function groupKey(by: Exclude<GroupBy, "trait">, row: SummaryRow): GroupKey {
  switch (by) {
    case "pair":
      return { answering_model: row.answering_model, parsing_model: row.parsing_model };
    case "question":
      return { question_id: row.question_id };
    case "replicate":
      return { replicate: row.replicate };
    case "answering_model":
      return { answering_model: row.answering_model };
    case "parsing_model":
      return { parsing_model: row.parsing_model };
    case "failure_category":
      return { failure_category: row.failure_category };
  }
}

/** Field by field: null first, numbers by value, strings by code unit. */
function compareKeys(a: GroupKey, b: GroupKey): number {
  for (const k of Object.keys(a)) {
    const x = a[k] ?? null;
    const y = b[k] ?? null;
    if (x === y) continue;
    if (x === null) return -1;
    if (y === null) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}
