/**
 * Prices per million tokens, by model, used to turn recorded usage into dollars.
 *
 * The shipped table is a snapshot (PRICES_AS_OF) of the providers' public list prices; providers
 * change them, so a run can override or extend it with `prices` in its request. A model with no
 * price has cost `null` (unknown, never 0), so does every sum that includes one of its calls
 * (`addUsd`), and it is named in `unpriced_models`; a run with `budget_usd`
 * must price every model it calls (plan.ts refuses it otherwise), or the budget could not bind.
 *
 * Lookup key: `"<interface>:<model_name>"` first, then the bare model name (so an
 * openai_compatible proxy to gpt-4o can reuse the openai price by naming the model alone).
 */
import type { Price, PriceOverrides } from "../schemas/prices";

export const PRICES_AS_OF = "2025-06-01";

const p = (input_per_mtok: number, output_per_mtok: number): Price => ({ input_per_mtok, output_per_mtok });

export const DEFAULT_PRICES: Readonly<Record<string, Price>> = {
  "openai:gpt-4o": p(2.5, 10),
  "openai:gpt-4o-mini": p(0.15, 0.6),
  "openai:gpt-4.1": p(2, 8),
  "openai:gpt-4.1-mini": p(0.4, 1.6),
  "openai:gpt-4.1-nano": p(0.1, 0.4),
  "openai:text-embedding-3-small": p(0.02, 0),
  "openai:text-embedding-3-large": p(0.13, 0),
  "anthropic:claude-opus-4-1": p(15, 75),
  "anthropic:claude-sonnet-4-5": p(3, 15),
  "anthropic:claude-haiku-4-5": p(1, 5),
  "anthropic:claude-3-5-haiku-latest": p(0.8, 4),
  "workers_ai:@cf/meta/llama-3.1-8b-instruct": p(0.282, 0.827),
  "workers_ai:@cf/baai/bge-base-en-v1.5": p(0.067, 0),
};

export type PriceTable = Readonly<Record<string, Price>>;

/** Shipped defaults with the run's overrides on top. */
export function priceTable(overrides: PriceOverrides | undefined): PriceTable {
  return { ...DEFAULT_PRICES, ...(overrides ?? {}) };
}

export function priceFor(table: PriceTable, iface: string, modelName: string): Price | null {
  return table[`${iface}:${modelName}`] ?? table[modelName] ?? null;
}

/** A sum of costs: unknown (null) as soon as one part is unknown; an unpriced call never counts as free. */
export function addUsd(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

/** Dollars for one usage; null when the model has no price. */
export function costOf(price: Price | null, tokens: { input_tokens: number; output_tokens: number }): number | null {
  if (!price) return null;
  return (tokens.input_tokens * price.input_per_mtok + tokens.output_tokens * price.output_per_mtok) / 1_000_000;
}
