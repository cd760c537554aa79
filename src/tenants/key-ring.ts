/**
 * The provider keys one tenant's models may use, and where each may go. A tenant secret
 * (PUT /v1/secrets/:name) wins over a deployment secret of the same name; deployment secrets
 * (OPENAI_API_KEY, …, set with wrangler) serve only tenants with `use_deployment_keys`, and never
 * the EDGEVAL_* secrets that guard edgeval itself. A tenant key is bound to its interface and is
 * sent only to that provider's origin or the origins registered with it; a deployment key goes
 * to its provider's origin or the EDGEVAL_KEY_ORIGINS list (src/llm/key-origins.ts).
 */
import { bindingByName, type Env } from "../env";
import { allowedKeyOrigins, KEY_ORIGINS_VAR, keyDestinationIssue } from "../llm/key-origins";
import { edgeConfig } from "../config";
import { log } from "../log";
import { parseKek, secretAad, unseal } from "../lib/secret-crypto";
import { outboundUrlIssue } from "../outbound/url-policy";
import { secretsNamed, sealedOf, type SecretLimits } from "./secrets-repo";
import { secretNamesIn } from "./secret-names";
import type { TenantRecord } from "./tenants-repo";

export interface TenantKey {
  value: string;
  interface: string;
  origins: ReadonlySet<string>;
  limits: SecretLimits | null;
}

export interface KeyRing {
  /** The key stored under `name`, or undefined. */
  secret(name: string): string | undefined;
  /** Null when the model may send the key `name` (null: it sends none) where it points; else why not. */
  destinationIssue(model: { interface: string; base_url?: string | null }, name: string | null): string | null;
  /** The per-key limits registered with a tenant secret. */
  limits(name: string | null): SecretLimits | undefined;
  /**
   * An MCP server's bearer token (mcp_auth_secrets): only a tenant secret set with interface "mcp"
   * and the server's origin in its origins — never a deployment secret or a model's key.
   */
  mcpSecret(name: string, url: string): { ok: true; value: string } | { ok: false; error: string };
  /** Null when requests may go to this base URL under the worker's outbound policy (src/outbound). */
  urlIssue(baseUrl: string): string | null;
  /** The same for a URL used as given (an MCP server's). */
  endpointIssue(url: string): string | null;
  /** Every key value this ring could send (the tenant's secrets opened so far, and the deployment's provider keys it may use): scrubbed from model output. */
  knownSecrets(): string[];
}

/**
 * The deployment's provider keys are bound to their interface (issue 16): an openai_compatible
 * model at an allowed origin must not receive the Anthropic or the Tavily key by naming it.
 */
const DEPLOYMENT_KEY_INTERFACE: Readonly<Record<string, string | null>> = {
  OPENAI_API_KEY: "openai",
  ANTHROPIC_API_KEY: "anthropic",
  TAVILY_API_KEY: null,
};

/** The deployment secrets a model or search uses by default; any other is named by api_key_secret and is the tenant's own or looked up by name. */
const DEPLOYMENT_PROVIDER_SECRETS = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "TAVILY_API_KEY"];

/** Secrets that guard edgeval itself: never a provider key, whatever a config names. */
const RESERVED_PREFIX = "EDGEVAL_";

/**
 * A key as a request carries it: fetch trims a header value's leading and trailing HTTP whitespace,
 * so a key stored or deployed with a trailing newline goes out without it, and that is the form a
 * provider can echo and scrubbing must look for (PUT /v1/secrets refuses such values now; rows and
 * deployment secrets from before may still have one).
 */
const asSent = (value: string) => value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");

/**
 * A ring over `tenantKeys`. Without `opened`, the map holds every secret of the tenant (tests, a
 * judge whose models send no key). With it, the map holds the tenant's secrets among the names
 * opened so far (`tenantKeyRing`), and asking for a name not opened throws: falling back to the
 * deployment's key of that name would send it where the tenant's own key was meant to go.
 */
export function keyRing(
  env: Env,
  useDeploymentKeys: boolean,
  tenantKeys: ReadonlyMap<string, TenantKey>,
  opened?: ReadonlySet<string>,
): KeyRing {
  const own = (name: string): TenantKey | undefined => {
    if (opened && !opened.has(name)) {
      throw new Error(`the key ring was not opened for the secret ${name}: find it with secretNamesIn (src/tenants/secret-names.ts)`);
    }
    return tenantKeys.get(name);
  };
  const deployment = (name: string) => {
    const value = useDeploymentKeys && !name.startsWith(RESERVED_PREFIX) ? bindingByName(env, name) : undefined;
    const sent = typeof value === "string" ? asSent(value) : "";
    return sent !== "" ? sent : undefined;
  };
  const deploymentOrigins = allowedKeyOrigins(env[KEY_ORIGINS_VAR]);
  return {
    secret: (name) => own(name)?.value ?? deployment(name),
    destinationIssue(model, name) {
      if (name === null) return null;
      const mine = own(name);
      if (!mine) {
        const bound = DEPLOYMENT_KEY_INTERFACE[name];
        if (bound !== undefined && bound !== model.interface) {
          return `the deployment secret ${name} serves ${bound === null ? "search only, never a model" : `${bound} models only`}, not a ${model.interface} model: name the secret of this model's own key in api_key_secret`;
        }
        return keyDestinationIssue(model, name, deploymentOrigins);
      }
      if (mine.interface !== model.interface) {
        return `the secret ${name} is registered for interface ${mine.interface}, not ${model.interface}: set it again with PUT /v1/secrets/${name}`;
      }
      return keyDestinationIssue(model, name, mine.origins, `register the origin with the secret (PUT /v1/secrets/${name} {origins})`);
    },
    limits: (name) => (name === null ? undefined : (own(name)?.limits ?? undefined)),
    mcpSecret(name, url) {
      const mine = own(name);
      if (!mine || mine.interface !== "mcp")
        return { ok: false, error: `${name} is not a secret of this tenant set with interface "mcp" (PUT /v1/secrets/${name})` };
      const origin = new URL(url).origin;
      if (!mine.origins.has(origin))
        return { ok: false, error: `the secret ${name} is not registered for ${origin}: add it to the secret's origins` };
      return { ok: true, value: mine.value };
    },
    urlIssue: (baseUrl) => outboundUrlIssue(baseUrl, edgeConfig(env).outbound, "base"),
    endpointIssue: (url) => outboundUrlIssue(url, edgeConfig(env).outbound, "endpoint"),
    knownSecrets: () => [
      ...[...tenantKeys.values()].map((k) => k.value),
      ...DEPLOYMENT_PROVIDER_SECRETS.map(deployment).filter((v): v is string => v !== undefined),
    ],
  };
}

/** A tenant's key ring that decrypts its secrets by name, as they are needed, each once. */
export interface TenantKeyRing {
  ring: KeyRing;
  /** Reads (one D1 query) and decrypts the tenant's secrets among `names` not opened yet. */
  open(names: Iterable<string>): Promise<void>;
}

/**
 * A secret that cannot be decrypted (KEK missing or rotated away) is left out and logged by name,
 * so its models fail as "not set"; a secret no name asks for is never read nor decrypted.
 */
export function tenantKeyRing(env: Env, tenant: TenantRecord): TenantKeyRing {
  const keys = new Map<string, TenantKey>();
  const opened = new Set<string>();
  const opening = new Map<string, Promise<void>>();
  const read = async (names: string[]) => {
    const rows = await secretsNamed(env.DB, tenant.tenant_id, names);
    const keks = parseKek(env.EDGEVAL_SECRETS_KEK);
    await Promise.all(
      rows.map(async (r) => {
        try {
          const value = asSent(await unseal(keks, secretAad(r.tenant_id, r.name), sealedOf(r)));
          keys.set(r.name, { value, interface: r.interface, origins: new Set(r.origins_json), limits: r.limits_json });
        } catch (err) {
          log.warn("tenant_secret_unreadable", {
            tenant_id: r.tenant_id,
            name: r.name,
            kek_version: r.kek_version,
            error: (err as Error).name,
          });
        }
      }),
    );
    for (const n of names) opened.add(n);
  };
  return {
    ring: keyRing(env, tenant.use_deployment_keys, keys, opened),
    async open(names) {
      const wanted = [...new Set(names)];
      const fresh = wanted.filter((n) => !opened.has(n) && !opening.has(n));
      if (fresh.length > 0) {
        // Marked before the read, so jobs of one batch opening the same names share it; a failed
        // read forgets them, and the next open reads them again.
        const reading = read(fresh).finally(() => {
          for (const n of fresh) opening.delete(n);
        });
        for (const n of fresh) opening.set(n, reading);
      }
      await Promise.all(wanted.map((n) => opening.get(n)).filter((p) => p !== undefined));
    },
  };
}

/** The ring for what `needs` (a run body, a run spec, a judge config) may send: only its secrets are decrypted (secret-names.ts). */
export async function loadKeyRing(env: Env, tenant: TenantRecord, needs: unknown): Promise<KeyRing> {
  const keys = tenantKeyRing(env, tenant);
  await keys.open(secretNamesIn(needs));
  return keys.ring;
}
