/**
 * The one check of where a model sends its requests and its key, for every place that accepts
 * model configs (runs, /v1/judge): its base_url must pass the outbound policy (src/outbound: no
 * private or loopback addresses in production, key or no key), the secret it needs must be set,
 * and may be sent only where the model points (key-origins.ts; a tenant's key ring decides these). The adapters check the destination again
 * when they build a port (factory's `keyDestination`), because a queued spec may predate a change.
 */
import type { FieldIssue } from "../schemas/field-issue";
import { requiredSecretName, type ResolvedModel } from "./factory";

/** What the check asks of the keys it may use (a tenant's KeyRing). */
export interface ModelKeys {
  secret(name: string): string | undefined;
  destinationIssue(model: { interface: string; base_url?: string | null }, secretName: string | null): string | null;
  /** Null when requests may go to this base URL (src/outbound/url-policy.ts); else why not. */
  urlIssue(baseUrl: string): string | null;
}

/** Interfaces whose calls go to their base_url (manual calls nothing, workers_ai a binding). */
const SENDS_TO_BASE_URL: ReadonlySet<string> = new Set(["openai", "anthropic", "openai_compatible"]);

type KeyedModel = Pick<ResolvedModel, "id" | "interface" | "api_key_secret"> & { base_url?: string | null };

export interface ModelKeyIssues {
  /** The secret the model needs is not set (at `at.model`): a dry run only warns of it. */
  unset: FieldIssue[];
  /** The base_url is refused by the outbound policy, or the key would go where it may not (at `at.base_url`). */
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
  const urlIssue = model.base_url && SENDS_TO_BASE_URL.has(model.interface) ? keys.urlIssue(model.base_url) : null;
  const refused = urlIssue ? [{ path: at.base_url, message: `model ${model.id}: base_url ${urlIssue}` }] : [];
  const name = requiredSecretName(model);
  if (name === null) return { unset: [], misdirected: refused };
  const unset = keys.secret(name) ? [] : [{ path: at.model, message: `model ${model.id} needs the secret ${name}, which is not set; ${advice(name)}` }];
  const destination = refused.length ? null : keys.destinationIssue(model, name);
  const misdirected = destination ? [{ path: at.base_url, message: `model ${model.id}: ${destination}` }] : refused;
  return { unset, misdirected };
}
