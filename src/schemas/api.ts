/** HTTP API bodies. */
import { z } from "zod";
import { Benchmark } from "./benchmark";
import { VerificationConfig } from "./verification-config";

export const CreateRunBody = z.strictObject({
  benchmark: Benchmark,
  config: VerificationConfig,
  run_name: z.string().min(1).max(200).optional(),
});
export type CreateRunBody = z.output<typeof CreateRunBody>;

export const ListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z.string().min(1).max(512).optional(),
});
