/**
 * The worker's bindings. Secrets (EDGEVAL_API_TOKEN, OPENAI_API_KEY, ANTHROPIC_API_KEY and any
 * secret named by a model's `api_key_secret`) arrive here and are read only at the edge.
 */
import type { AiBinding } from "./llm/workers-ai";

export interface Env {
  DB: D1Database;
  BLOBS: R2Bucket;
  JOBS: Queue<unknown>;
  /** Export builder steps (src/exports/build.ts). */
  EXPORTS: Queue<unknown>;
  RUNS: DurableObjectNamespace<import("./coordinator/coordinator").RunCoordinator>;
  /** One per (provider, base URL, key hash, model): the shared rate budget of every model call. */
  LIMITER: DurableObjectNamespace<import("./limiter/provider-limiter").ProviderLimiter>;
  /** An all-scope key of tenant `default` (src/tenants/README.md). */
  EDGEVAL_API_TOKEN?: string;
  /** One per tenant: its request-rate bucket (src/tenants/rate-limiter.ts). */
  TENANT_LIMITER: DurableObjectNamespace<import("./tenants/rate-limiter").TenantRateLimiter>;
  /** The operator's token for /v1/admin. */
  EDGEVAL_ADMIN_TOKEN?: string;
  /** HMAC key under which API keys are hashed; changing it invalidates every API key. */
  EDGEVAL_KEY_PEPPER?: string;
  /** Key-encryption key(s) of tenant secrets: one value, or `1:<secret> 2:<secret>` (src/lib/secret-crypto.ts). */
  EDGEVAL_SECRETS_KEK?: string;
  OPENAI_API_KEY?: string;
  ANTHROPIC_API_KEY?: string;
  /** The deployment's key of the search deep judgment's hallucination check uses (read by name: src/tenants/key-ring.ts). */
  TAVILY_API_KEY?: string;
  JOB_MAX_ATTEMPTS?: string;
  /** Times a job may be re-queued to wait out a provider's retry-after without spending a delivery; default 20 (src/config.ts). */
  JOB_MAX_DEFERRALS?: string;
  /** Base of the exponential backoff between deliveries of a job (seconds). */
  JOB_RETRY_BASE_DELAY_SECONDS?: string;
  /** Ceiling on one model call (ms), over every request_timeout; default 140000 (a call holds a 150 s limiter lease). */
  MODEL_TIMEOUT_MS?: string;
  /** Multiplies every retry backoff (default 1; tests use 0.01). Provider retry-after is never scaled. */
  RETRY_DELAY_SCALE?: string;
  /** Origins besides each provider's own that model keys may be sent to (src/llm/key-origins.ts). */
  EDGEVAL_KEY_ORIGINS?: string;
  /** JSON `{"<interface or origin>": {rpm?, tpm?, concurrency?}}`: the shared limiter's limits for deployment keys and keyless servers. */
  EDGEVAL_PROVIDER_LIMITS?: string;
  /** HMAC key of the nonces that delimit answers in judge prompts (src/lib/untrusted.ts); unset: a random key per isolate. */
  EDGEVAL_PROMPT_NONCE_KEY?: string;
  /** Origins the operator allows whatever their address: a self-hosted server on a private network (src/outbound). */
  EDGEVAL_PRIVATE_ORIGINS?: string;
  /** Locally, the OpenAI-compatible endpoint serving the embedding check's default model (default Ollama's http://127.0.0.1:11434/v1). */
  EDGEVAL_EMBEDDING_BASE_URL?: string;
  /**
   * The API's public origin (`https://evals.example.com`): webhook events and trigger hook URLs link
   * there. Unset: the origin the submitting request came in on (src/webhooks/links.ts).
   */
  EDGEVAL_PUBLIC_ORIGIN?: string;
  /** "local" on a developer's machine (.dev.vars, npm start, npm run dev, the tests); absent in production. */
  EDGEVAL_ENV?: string;
  /** One per webhook delivery: its retry schedule on alarms (src/webhooks/dispatcher.ts). */
  WEBHOOKS: DurableObjectNamespace<import("./webhooks/dispatcher").WebhookDispatcher>;
  /** Multiplies the webhook retry schedule (default 1; tests shorten it). */
  WEBHOOK_RETRY_SCALE?: string;
  /** Jobs of one queue batch run side by side (default 4; src/config.ts parses every var). */
  JOB_CONCURRENCY?: string;
  /** Jobs per coordinator shard: larger runs are sharded (default 5,000; src/coordinator/shards.ts). */
  COORDINATOR_SHARD_JOBS?: string;
  /** Where the Tavily-compatible search API is (deep judgment's search; its key is the TAVILY_API_KEY secret). */
  TAVILY_BASE_URL?: string;
  /** Workers AI, for `workers_ai` models (absent or refusing locally). */
  AI?: AiBinding;
  // No index signature: a misspelt binding or var does not compile. Secrets named at run time (a
  // model's api_key_secret) and the job queue's shards are read with bindingByName.
}

/**
 * Whether this worker runs as a local development stack. Only the exact value "local" counts:
 * a deployment that never sets EDGEVAL_ENV (or misspells it) is production, the cautious side,
 * so nothing meant for a developer's machine (advice, relaxed defaults) leaks into a deploy.
 */
export function isLocalMode(env: { EDGEVAL_ENV?: unknown }): boolean {
  return env.EDGEVAL_ENV === "local";
}

/** Secrets npm run dev passes from its own environment (scripts/dev.mjs); any other comes from .dev.vars.local. */
const DEV_ENV_SECRETS = new Set(["OPENAI_API_KEY", "ANTHROPIC_API_KEY"]);

/**
 * How to set a missing secret, in the words that fit where the worker runs: a tenant's own key
 * with PUT /v1/secrets (src/tenants), or the deployment's — on a developer's machine a file or
 * the environment of `npm run dev`, in a deployment `wrangler secret put`. A message about a
 * missing secret ends with this.
 */
export function secretAdvice(name: string, env: { EDGEVAL_ENV?: unknown }): string {
  const tenant = `PUT /v1/secrets/${name}, or for the deployment's own keys`;
  if (!isLocalMode(env)) return `${tenant} wrangler secret put ${name}`;
  const fromEnv = DEV_ENV_SECRETS.has(name) ? `, or export ${name} before npm run dev` : "";
  return `${tenant} add ${name}=… to .dev.vars.local${fromEnv}, then restart npm start / npm run dev`;
}

/**
 * A binding, var or secret by a name known only at run time: a model's `api_key_secret`, the job
 * queue's shards (JOBS_1, …). The one read of `Env` by a computed name.
 */
export function bindingByName(env: Env, name: string): unknown {
  return (env as unknown as Record<string, unknown>)[name];
}
