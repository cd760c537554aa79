/**
 * POST /v1/runs with dry_run: the pipeline's call/token estimate (pipeline/estimate.ts), priced
 * with the run's price table. Nothing is written and no model is called.
 */
import { estimateCalls, ASSUMED_ANSWER_TOKENS } from "../pipeline/estimate";
import { addUsd, costOf, priceFor, priceTable, PRICES_AS_OF } from "../llm/prices";
import type { PriceOverrides } from "../schemas/prices";
import type { RunSpec } from "../storage/run-spec";

interface Totals {
  calls: number;
  calls_max: number;
  input_tokens: number;
  output_tokens: number;
  /** Null when a model counted here has no price (unknown, never 0). */
  cost_usd: number | null;
}

export interface RunEstimate extends Totals {
  per_stage: Record<string, Totals>;
  per_model: Record<string, Totals & { role: "answering" | "judging" }>;
  unpriced_models: string[];
  prices_as_of: string;
  assumptions: string[];
}

const zero = (): Totals => ({ calls: 0, calls_max: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 });

function add(t: Totals, e: Totals): void {
  t.calls += e.calls;
  t.calls_max += e.calls_max;
  t.input_tokens += e.input_tokens;
  t.output_tokens += e.output_tokens;
  t.cost_usd = addUsd(t.cost_usd, e.cost_usd);
}

export function estimateRun(
  spec: Pick<
    RunSpec,
    "questions" | "answering_models" | "parsing_models" | "replicate_count" | "settings" | "scenarios" | "scenario_turn_limit"
  >,
  prices?: PriceOverrides,
): RunEstimate {
  const table = priceTable(prices);
  const total = zero();
  const per_stage: Record<string, Totals> = {};
  const per_model: RunEstimate["per_model"] = {};
  const unpriced = new Set<string>();
  for (const e of estimateCalls(spec).values()) {
    const price = priceFor(table, e.model.interface, e.model.model_name);
    if (!price && e.calls > 0) unpriced.add(`${e.model.interface}:${e.model.model_name}`);
    // A model that makes no call costs nothing, priced or not.
    const row = { ...e, cost_usd: e.calls > 0 ? costOf(price, e) : 0 };
    add(total, row);
    add((per_stage[e.stage] ??= zero()), row);
    add((per_model[`${e.role}:${e.model.id}`] ??= { ...zero(), role: e.role }), row);
  }
  return {
    ...total,
    per_stage,
    per_model,
    unpriced_models: [...unpriced].sort(),
    prices_as_of: PRICES_AS_OF,
    assumptions: [
      `generated answers are ${ASSUMED_ANSWER_TOKENS} tokens; tokens are ~4 characters of message text`,
      "expected path: no abstention, sufficient response, deep-judgment excerpts valid first time, no embedding-check call (calls_max counts those)",
      "agents (MCP answering models, agentic parsing's investigation) answer in one model turn; calls_max counts their model_call_limit / agentic_parsing_max_turns; dynamic agentic parsing finds the final message sufficient (calls_max counts the investigation and extraction); tool schemas are not counted",
      "calls are billed calls: rate-limit and server errors that return no tokens are not counted",
      ...scenarioAssumption(spec),
    ],
  };
}

/** Scenario turns are not estimated: how many a chain takes depends on its answers. Said, with the bounds. */
function scenarioAssumption(
  spec: Pick<RunSpec, "answering_models" | "parsing_models" | "replicate_count" | "scenarios" | "scenario_turn_limit">,
): string[] {
  const n = spec.scenarios?.length ?? 0;
  if (n === 0) return [];
  const chains = n * spec.answering_models.length * spec.parsing_models.length * spec.replicate_count;
  return [
    `not counted: ${chains} scenario run(s) (${n} scenario(s) × answering × parsing models × replicates), each 1 to ${spec.scenario_turn_limit ?? 20} turns of one answering and one judging pipeline; how many depends on the answers`,
  ];
}
