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

/** What the MCP check asks of a tenant's key ring: the endpoint rule of the outbound policy and its MCP tokens. */
export interface McpKeys {
  endpointIssue(url: string): string | null;
  mcpSecret(name: string, url: string): { ok: true; value: string } | { ok: false; error: string };
}

/**
 * An answering agent's MCP servers (`mcp_urls_dict`): each URL must pass the outbound policy and
 * each named token (`mcp_auth_secrets`) must be the tenant's MCP secret for that server's origin.
 * The toolbox (src/mcp/toolbox.ts) checks both again before it sends anything.
 */
export function mcpServerIssues(
  model: Pick<ResolvedModel, "id"> & { mcp_urls_dict?: Record<string, string>; mcp_auth_secrets?: Record<string, string> },
  path: string,
  keys: McpKeys,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const [server, url] of Object.entries(model.mcp_urls_dict ?? {})) {
    const issue = keys.endpointIssue(url);
    if (issue) issues.push({ path: `${path}.mcp_urls_dict.${server}`, message: `model ${model.id}: MCP server ${issue}` });
    const name = model.mcp_auth_secrets?.[server];
    const token = name && !issue ? keys.mcpSecret(name, url) : null;
    if (token && !token.ok) issues.push({ path: `${path}.mcp_auth_secrets.${server}`, message: `model ${model.id}: ${token.error}` });
  }
  return issues;
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
  const unset = keys.secret(name)
    ? []
    : [{ path: at.model, message: `model ${model.id} needs the secret ${name}, which is not set; ${advice(name)}` }];
  const destination = refused.length ? null : keys.destinationIssue(model, name);
  const misdirected = destination ? [{ path: at.base_url, message: `model ${model.id}: ${destination}` }] : refused;
  return { unset, misdirected };
}
