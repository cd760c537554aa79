/**
 * The one check of a model's key, for every place that accepts model configs (runs, /v1/judge):
 * the secret it needs must be set, and may be sent only where the model points
 * (key-origins.ts; a tenant's key ring decides both). The adapters check the destination again
 * when they build a port (factory's `keyDestination`), because a queued spec may predate a change.
 */
import type { FieldIssue } from "../schemas/field-issue";
import { requiredSecretName, type ResolvedModel } from "./factory";

/** What the check asks of the keys it may use (a tenant's KeyRing). */
export interface ModelKeys {
  secret(name: string): string | undefined;
  destinationIssue(model: { interface: string; base_url?: string | null }, secretName: string | null): string | null;
}

type KeyedModel = Pick<ResolvedModel, "id" | "interface" | "api_key_secret"> & { base_url?: string | null };

export interface ModelKeyIssues {
  /** The secret the model needs is not set (at `at.model`): a dry run only warns of it. */
  unset: FieldIssue[];
  /** The key would go where it may not (at `at.base_url`). */
  misdirected: FieldIssue[];
}

/**
 * Issues with the model's key; both lists empty when it needs no key, or its key is set and may go
 * where it points. `advice` says how to set a secret where this worker runs (env.ts secretAdvice).
 */
export function modelKeyIssues(
  model: KeyedModel,
  at: { model: string; base_url: string },
  keys: ModelKeys,
  advice: (name: string) => string,
): ModelKeyIssues {
  const name = requiredSecretName(model);
  if (name === null) return { unset: [], misdirected: [] };
  const unset = keys.secret(name) ? [] : [{ path: at.model, message: `model ${model.id} needs the secret ${name}, which is not set; ${advice(name)}` }];
  const destination = keys.destinationIssue(model, name);
  const misdirected = destination ? [{ path: at.base_url, message: `model ${model.id}: ${destination}` }] : [];
  return { unset, misdirected };
}
