/**
 * The scopes an API key may carry. One list: the zod schema, the README's scope → routes table
 * and the admin "all scopes" grant are derived from it.
 */
import { z } from "zod";

export const SCOPES = [
  "runs:write",
  "runs:read",
  "benchmarks:write",
  "benchmarks:read",
  "judge",
  "secrets:write",
  "keys:admin",
  "webhooks:write",
  "webhooks:read",
  "triggers:write",
  "triggers:read",
  "judges:write",
  "judges:read",
] as const;

export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

/** A key's scopes as given at creation: at least one, no repeats. */
export const ScopeList = z
  .array(Scope, { error: `scopes must be a list of: ${SCOPES.join(", ")}` })
  .min(1, { error: "scopes must name at least one scope" })
  .refine((s) => new Set(s).size === s.length, { error: "scopes must not repeat a scope" });
