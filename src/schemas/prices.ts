/** A model's price per million tokens, and a run's `prices` overrides (the shipped table and its use: src/llm/prices.ts). */
import { z } from "zod";
import { onWrongType } from "../lib/wire-issues";

export const Price = z.strictObject({
  input_per_mtok: z.number({ error: onWrongType("input_per_mtok must be a number") }).min(0),
  output_per_mtok: z.number({ error: onWrongType("output_per_mtok must be a number") }).min(0),
});
export type Price = z.output<typeof Price>;

/** Run option: `{ "<interface>:<model_name>" | "<model_name>": {input_per_mtok, output_per_mtok} }`. */
export const PriceOverrides = z.record(z.string().min(1).max(300), Price);
export type PriceOverrides = z.output<typeof PriceOverrides>;
