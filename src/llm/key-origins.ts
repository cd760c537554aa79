/**
 * Where a model's key may be sent. A run names a secret (or gets its interface's default key) and,
 * separately, a base_url: without a check, any caller of the API could point `base_url` at their
 * own server and receive the service's provider key. A key goes only to its provider's own origin
 * (api.openai.com, api.anthropic.com) or to an origin the deployment lists in the
 * EDGEVAL_KEY_ORIGINS var (comma- or space-separated URLs; only their origins count). Models that
 * send no key (openai_compatible without api_key_secret, manual, workers_ai) may use any base_url
 * the outbound policy allows (src/outbound: public addresses only in production).
 */
import { parseOrigins } from "../outbound/origins";
import { PROVIDER_ORIGINS } from "../outbound/provider-origins";

export const KEY_ORIGINS_VAR = "EDGEVAL_KEY_ORIGINS";

/** The origins listed in EDGEVAL_KEY_ORIGINS; entries that are not URLs are ignored. */
export const allowedKeyOrigins = (raw: unknown): ReadonlySet<string> => parseOrigins(raw);

/**
 * Null when the model's key may go where the model sends it (or it sends none: `secretName` null,
 * from factory's requiredSecretName); else what is wrong and what to do.
 */
export function keyDestinationIssue(
  model: { interface: string; base_url?: string | null },
  secretName: string | null,
  allowed: ReadonlySet<string>,
  /** How the caller may allow another origin (a tenant secret registers its origins instead). */
  howToAllow = `list the origin in the ${KEY_ORIGINS_VAR} var`,
): string | null {
  const name = secretName;
  if (name === null) return null;
  const providerOrigin = PROVIDER_ORIGINS[model.interface];
  let origin: string | undefined = providerOrigin;
  if (model.base_url) {
    try {
      origin = new URL(model.base_url).origin;
    } catch {
      return `base_url ${JSON.stringify(model.base_url)} is not a URL`;
    }
  }
  if (origin !== undefined && (origin === providerOrigin || allowed.has(origin))) return null;
  return (
    `this model would send the secret ${name} to ${origin ?? "an unknown host"}, which is not an allowed destination ` +
    `for keys: use the provider's own URL, ${howToAllow}, or use a model that needs no key`
  );
}
