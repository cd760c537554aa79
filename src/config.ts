/**
 * The worker's vars, parsed once per `env` object into a typed config (the edge reads these fields,
 * never the raw strings). A var that is absent or not a valid value takes its default, as before:
 * a misspelt value must not stop the worker, and the defaults are the production behaviour. A value
 * that is set but cannot be used is not passed over in silence: the isolate logs a warning naming
 * the var and what was wrong, once (`config_var_unusable`; the value itself is not logged).
 */
import { z } from "zod";
import { type Env, isLocalMode } from "./env";
import { parseOrigins } from "./outbound/origins";
import { PROVIDER_ORIGINS, TAVILY_ORIGIN } from "./outbound/provider-origins";
import type { OutboundPolicy } from "./outbound/url-policy";
import type { PartialLimits } from "./limiter/limiter-state";
import { ModelLimits } from "./schemas/api";
import { INTERFACES } from "./schemas/model-config";
import { log } from "./log";

/** An integer ≥ `min` from a var's string, or `fallback`. */
const int = (min: number, fallback: number) => z.coerce.number().int().min(min).catch(fallback);

const Vars = z.object({
  /** Deliveries a job gets before a retryable model failure is recorded as a result. */
  JOB_MAX_ATTEMPTS: int(1, 4),
  /**
   * Times a job may go back to the queue to wait out a provider's retry-after without spending one
   * of its deliveries (src/jobs/consumer.ts); past it, such a wait spends a delivery like any retry.
   */
  JOB_MAX_DEFERRALS: int(0, 20),
  /** Base of the exponential backoff between deliveries of a job (seconds). */
  JOB_RETRY_BASE_DELAY_SECONDS: int(0, 2),
  /**
   * Jobs per coordinator shard: a run with more has shards and a root (src/coordinator/shards.ts),
   * so no one Durable Object takes every claim and record of a very large run.
   */
  COORDINATOR_SHARD_JOBS: int(1, 5_000),
  /** Jobs of one queue batch run side by side (src/jobs/consumer.ts). */
  JOB_CONCURRENCY: int(1, 4),
  /** Ceiling on one model call (ms), over every request_timeout (src/adapters/edge-models.ts callTimeoutMs); a call holds a 150 s limiter lease. */
  MODEL_TIMEOUT_MS: int(1, 140_000),
  /** Multiplies every retry backoff (tests use 0.01); provider retry-after is never scaled. */
  RETRY_DELAY_SCALE: z.coerce.number().min(0).refine(Number.isFinite).catch(1),
  /** Where the Tavily-compatible search API is (default: Tavily's own). */
  TAVILY_BASE_URL: z.string().optional().catch(undefined),
  /** Locally, the OpenAI-compatible endpoint serving the embedding check's default model (src/llm/embedding-model.ts). */
  EDGEVAL_EMBEDDING_BASE_URL: z.string().min(1).optional().catch(undefined),
  /** Multiplies the webhook retry schedule (src/webhooks/schedule.ts; tests shorten it). */
  WEBHOOK_RETRY_SCALE: z.coerce.number().positive().refine(Number.isFinite).catch(1),
  /** Origins the operator allows whatever their address (src/outbound/url-policy.ts). */
  EDGEVAL_PRIVATE_ORIGINS: z.string().optional().catch(undefined),
  /** Origins besides each provider's own that keys may go to (src/llm/key-origins.ts). */
  EDGEVAL_KEY_ORIGINS: z.string().optional().catch(undefined),
  /** JSON: the shared limiter's limits per interface or origin, over the defaults (src/adapters/edge-models.ts). */
  EDGEVAL_PROVIDER_LIMITS: z.string().optional().catch(undefined),
  /** The API's public origin, for the absolute links webhook events carry (src/webhooks/links.ts). */
  EDGEVAL_PUBLIC_ORIGIN: z.string().optional().catch(undefined),
});

/** `{"<interface or origin>": {rpm?, tpm?, concurrency?}}`; an entry that is not one is ignored. */
const ProviderLimitsVar = z.record(z.string(), ModelLimits.catch({}));

export interface EdgeConfig {
  jobMaxAttempts: number;
  jobRetryBaseDelaySeconds: number;
  jobConcurrency: number;
  jobMaxDeferrals: number;
  coordinatorShardJobs: number;
  modelTimeoutMs: number;
  retryDelayScale: number;
  tavilyBaseUrl: string | undefined;
  embeddingBaseUrl: string | undefined;
  webhookRetryScale: number;
  /** Where requests may go (src/outbound): every outbound URL is checked against it. */
  outbound: OutboundPolicy;
  /** EDGEVAL_PROVIDER_LIMITS by interface name or origin: the operator's limits for deployment keys and keyless servers. */
  providerLimits: ReadonlyMap<string, PartialLimits>;
  /** EDGEVAL_PUBLIC_ORIGIN as `scheme://host[:port]`, or undefined: links then use the origin a request came in on. */
  publicOrigin: string | undefined;
}

const parsed = new WeakMap<object, EdgeConfig>();

export function edgeConfig(env: Env): EdgeConfig {
  let config = parsed.get(env);
  if (!config) {
    // An absent var stays undefined, so it takes its default (coercing undefined would give NaN or "undefined").
    const raw = Object.fromEntries(Object.keys(Vars.shape).map((k) => [k, (env as unknown as Record<string, unknown>)[k] ?? undefined]));
    const v = Vars.parse(raw);
    const unusable = new Unusable();
    for (const [name, schema] of Object.entries(Vars.shape)) {
      if (raw[name] !== undefined && !schema.unwrap().safeParse(raw[name]).success) {
        unusable.add(name, `not a valid value: its default ${String(v[name as keyof typeof v])} applies`);
      }
    }
    config = {
      jobMaxAttempts: v.JOB_MAX_ATTEMPTS,
      jobRetryBaseDelaySeconds: v.JOB_RETRY_BASE_DELAY_SECONDS,
      jobMaxDeferrals: v.JOB_MAX_DEFERRALS,
      jobConcurrency: v.JOB_CONCURRENCY,
      coordinatorShardJobs: v.COORDINATOR_SHARD_JOBS,
      modelTimeoutMs: v.MODEL_TIMEOUT_MS,
      retryDelayScale: v.RETRY_DELAY_SCALE,
      tavilyBaseUrl: v.TAVILY_BASE_URL,
      embeddingBaseUrl: v.EDGEVAL_EMBEDDING_BASE_URL,
      webhookRetryScale: v.WEBHOOK_RETRY_SCALE,
      outbound: outboundPolicy(isLocalMode(env), v.EDGEVAL_PRIVATE_ORIGINS, v.EDGEVAL_KEY_ORIGINS, unusable),
      providerLimits: providerLimits(v.EDGEVAL_PROVIDER_LIMITS, unusable),
      publicOrigin: publicOrigin(v.EDGEVAL_PUBLIC_ORIGIN, unusable),
    };
    unusable.report();
    parsed.set(env, config);
  }
  return config;
}

/**
 * What the operator set and edgeval could not use, by var. Each problem is logged once per isolate
 * (a config is parsed once per `env` object, and the runtime may pass a new one per request).
 */
class Unusable {
  private readonly found: { name: string; why: string }[] = [];
  private static readonly reported = new Set<string>();
  add(name: string, why: string) {
    this.found.push({ name, why });
  }
  report() {
    for (const { name, why } of this.found) {
      const key = `${name}\n${why}`;
      if (Unusable.reported.has(key)) continue;
      Unusable.reported.add(key);
      log.warn("config_var_unusable", { var: name, why });
    }
  }
}

function outboundPolicy(local: boolean, privateList: string | undefined, keyList: string | undefined, unusable: Unusable): OutboundPolicy {
  const privateOrigins = originsOf("EDGEVAL_PRIVATE_ORIGINS", privateList, unusable);
  // The operator's lists name servers it runs or trusts: their error text is as good as a provider's.
  const keyOrigins = originsOf("EDGEVAL_KEY_ORIGINS", keyList, unusable);
  const providerOrigins = new Set([...Object.values(PROVIDER_ORIGINS), TAVILY_ORIGIN, ...keyOrigins, ...privateOrigins]);
  return { local, privateOrigins, providerOrigins };
}

/** An origin list's entries that are not URLs allow nothing (parseOrigins); each is reported by its place. */
function originsOf(name: string, raw: string | undefined, unusable: Unusable): Set<string> {
  const entries = (raw ?? "").split(/[\s,]+/).filter(Boolean);
  const origins = new Set<string>();
  entries.forEach((entry, i) => {
    const parsed = parseOrigins(entry);
    if (parsed.size === 0) unusable.add(name, `entry ${i + 1} of ${entries.length} is not a URL: it allows nothing`);
    for (const origin of parsed) origins.add(origin);
  });
  return origins;
}

/** An http(s) origin with nothing after it; anything else is reported, and the request's origin is used. */
function publicOrigin(raw: string | undefined, unusable: Unusable): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // reported below
  }
  const bare = url && /^https?:$/.test(url.protocol) && url.pathname === "/" && !url.search && !url.hash && !url.username;
  if (url && bare) return url.origin;
  unusable.add(
    "EDGEVAL_PUBLIC_ORIGIN",
    "not an origin like https://evals.example.com (no path): links use the origin each request came in on",
  );
  return undefined;
}

function providerLimits(raw: string | undefined, unusable: Unusable): Map<string, PartialLimits> {
  const out = new Map<string, PartialLimits>();
  const name = "EDGEVAL_PROVIDER_LIMITS";
  let json: unknown;
  try {
    json = raw === undefined ? {} : JSON.parse(raw);
  } catch {
    unusable.add(name, "not JSON: no operator limits apply");
    return out;
  }
  const parsed = ProviderLimitsVar.safeParse(json);
  if (!parsed.success) {
    unusable.add(name, 'not an object of {"<interface or origin>": {rpm?, tpm?, concurrency?}}: no operator limits apply');
    return out;
  }
  const entries = Object.entries(parsed.data);
  entries.forEach(([k, limits], i) => {
    const which = keyWords(k, i, entries.length);
    if (!ModelLimits.safeParse((json as Record<string, unknown>)[k]).success) {
      unusable.add(
        name,
        `the limits under ${which} are not {rpm?, tpm?, concurrency?} with positive values (concurrency whole): none apply`,
      );
    }
    const key = k.includes("://") ? originOf(k) : (INTERFACES as readonly string[]).includes(k) ? k : null;
    if (key === null) {
      unusable.add(name, `${which} is neither an interface (${INTERFACES.join(", ")}) nor a URL: it matches no model`);
      return;
    }
    out.set(key, limits);
  });
  return out;
}

/**
 * A key of EDGEVAL_PROVIDER_LIMITS as a warning names it: a word (a misspelt interface) as written,
 * anything else by its place, since a URL may carry credentials (`https://user:token@host`).
 */
function keyWords(key: string, i: number, n: number): string {
  return /^[A-Za-z0-9_.-]{1,40}$/.test(key) ? JSON.stringify(key) : `key ${i + 1} of ${n}`;
}

/** A URL's origin, or null for text that is not a URL or has no origin (`bad://`). */
function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? null : origin;
  } catch {
    return null;
  }
}
