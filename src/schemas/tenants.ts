/** Wire shapes of the tenant routes: /v1/admin/tenants (operator) and /v1/keys (a tenant's own keys). */
import { z } from "zod";
import { ModelLimits } from "./api";
import { ScopeList, SCOPES } from "./scopes";
import { mayHoldKey } from "../lib/wire-issues";

const PositiveInt = z.number().int().positive();

/** Per-tenant quota overrides (defaults and their use: src/tenants/limits.ts); the row stores only these. */
export const LimitOverrides = z
  .object({
    /** Requests per minute to /v1 (a token bucket refilled continuously). */
    requests_per_minute: PositiveInt.max(1_000_000).optional(),
    /** Runs queued or running at once; a submit past it is a 429. */
    concurrent_runs: PositiveInt.max(100_000).optional(),
    /** Jobs (question × answering model × replicate) one run may plan; past it, a 400. */
    jobs_per_run: PositiveInt.max(10_000_000).optional(),
    /** Spend per UTC calendar month in USD; null = no cap. */
    monthly_spend_usd: z.number().positive().nullable().optional(),
  })
  .strict();
export type LimitOverrides = z.infer<typeof LimitOverrides>;

/**
 * PATCH /v1/admin/tenants/:id `limits`: a JSON merge patch (RFC 7396) of the overrides. A key sent
 * replaces its override, `null` removes it (the default applies again; monthly_spend_usd's default
 * is no cap, so null still means no cap), a key not sent stays. Each value as LimitOverrides takes it.
 */
export const LimitOverridesPatch = z
  .object({
    requests_per_minute: LimitOverrides.shape.requests_per_minute.unwrap().nullable().optional(),
    concurrent_runs: LimitOverrides.shape.concurrent_runs.unwrap().nullable().optional(),
    jobs_per_run: LimitOverrides.shape.jobs_per_run.unwrap().nullable().optional(),
    monthly_spend_usd: LimitOverrides.shape.monthly_spend_usd,
  })
  .strict()
  // `{}` would change nothing, where before 8 Dec it restored the defaults: a script sending it must learn so.
  .refine((p) => Object.keys(p).length > 0, {
    error:
      "limits {} changes nothing (it is merged into the overrides); send the quotas to change, null for one to go back to its default, or limits: null to remove every override",
    when: (payload) => payload.issues.length === 0,
  });
export type LimitOverridesPatch = z.infer<typeof LimitOverridesPatch>;

/** Goes into R2 keys (`t/{tenant}/…`) and Durable Object names (`{tenant}:{run}`): no `/` or `:`. */
export const TenantId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, { error: "tenant_id must be 1-40 characters of a-z, 0-9 and -, starting with a letter or digit" });

const KeyName = z.string().min(1, { error: "name must not be empty" }).max(100);
/** An absolute time in the future; checked against the clock by the route (futureExpiry, src/http/keys.ts). */
export const ExpiresAt = z.iso
  .datetime({ offset: true, error: "expires_at must be an ISO 8601 time, e.g. 2027-01-31T00:00:00Z" })
  .nullable()
  .optional();
const RetentionDays = z.number().int().min(1, { error: "retention_days must be a whole number ≥ 1" }).max(36_500).nullable();

export const CreateKeyRequest = z.strictObject({
  name: KeyName,
  scopes: ScopeList,
  expires_at: ExpiresAt,
});
export type CreateKeyRequest = z.infer<typeof CreateKeyRequest>;

/** `expires_at` left out: the old key's lifetime from now; `null`: never expires (src/http/keys.ts). */
export const RotateKeyRequest = z.strictObject({ expires_at: ExpiresAt });

/** A key the operator issues to a tenant (its first, or one later): by default it holds every scope. */
const operatorKey = (name: string) =>
  z.strictObject({ name: KeyName.default(name), scopes: ScopeList.default([...SCOPES]), expires_at: ExpiresAt });

export const CreateTenantRequest = z.strictObject({
  tenant_id: TenantId.optional(),
  name: z.string().min(1, { error: "name must not be empty" }).max(200),
  use_deployment_keys: z.boolean().default(false),
  limits: LimitOverrides.default({}),
  retention_days: RetentionDays.default(null),
  /** The tenant's first key. */
  first_key: operatorKey("first key").default({ name: "first key", scopes: [...SCOPES] }),
});

/** POST /v1/admin/tenants/:id/keys: a key for a tenant that has none left able to create one (all expired or revoked). */
export const IssueTenantKeyRequest = operatorKey("issued by the operator");

export const UpdateTenantRequest = z
  .strictObject({
    name: z.string().min(1).max(200).optional(),
    use_deployment_keys: z.boolean().optional(),
    /** Merged into the overrides (LimitOverridesPatch): keys sent replace theirs, null removes one, the rest stay; `limits: null` removes them all. */
    limits: LimitOverridesPatch.nullable().optional(),
    retention_days: RetentionDays.optional(),
    disabled: z.boolean().optional(),
  })
  // An empty PATCH changed nothing yet wrote updated_at and a tenant.updated entry of no fields.
  .refine((b) => Object.keys(b).length > 0, {
    error: "send at least one of name, use_deployment_keys, limits, retention_days, disabled",
    // A body with a field it does not take has that issue already: this one would only add noise.
    when: (payload) => payload.issues.length === 0,
  });

/** A tenant secret's name: as `api_key_secret` names it; the EDGEVAL_ names are the service's own. */
export const SecretName = z
  .string()
  .regex(/^[A-Z][A-Z0-9_]{0,63}$/, {
    error: "a secret name is 1-64 characters of A-Z, 0-9 and _, starting with a letter, like OPENAI_API_KEY",
  })
  .refine((s) => !s.startsWith("EDGEVAL_"), { error: "names starting with EDGEVAL_ are reserved for edgeval's own secrets" });

/** An origin of a secret's `origins` is the URL's origin and nothing more (a root `/` aside). */
function bareOrigin(sent: string, ctx: z.RefinementCtx): void {
  let url: URL;
  try {
    url = new URL(sent);
  } catch {
    return; // z.url has said what is wrong
  }
  const extra = [
    url.username || url.password ? "a user name" : "",
    url.pathname !== "/" ? "a path" : "",
    url.search ? "a query" : "",
    url.hash ? "a fragment" : "",
  ].filter(Boolean);
  if (extra.length === 0) return;
  ctx.addIssue({
    code: "custom",
    input: sent,
    message:
      `an origin is a scheme, host and port only, and this one has ${extra.join(" and ")}: a key may go to every path of ` +
      `its origin, so no path restricts it; send ${url.origin}`,
  });
}

export const PutSecretRequest = z
  .strictObject({
    value: z
      .string({ error: mayHoldKey("value must be the key, as a string") })
      .min(1, { error: "value must not be empty" })
      .max(8_192, { error: mayHoldKey("value must be at most 8,192 characters") })
      // A request sends the key with its ends trimmed (a header value is), while scrubbing looks for
      // it as stored: a trailing newline would let an echoed key into results. A character a header
      // cannot carry would fail every call.
      .refine((v) => v.trim() === v, {
        error: mayHoldKey("value starts or ends with a space or line break (read from a file?); send the key without it"),
      })
      .refine((v) => /^[\x20-\x7e]*$/.test(v.trim()), {
        error: mayHoldKey(
          "value may hold only printable ASCII characters, as keys do: a line break or control character inside it makes it unusable",
        ),
      }),
    /** The only interface whose models may use this key; "mcp": a bearer token for MCP servers at `origins` only (mcp_auth_secrets). */
    interface: z.enum(["openai", "anthropic", "openai_compatible", "mcp"]),
    /**
     * Origins besides the interface's provider origin that may receive the key: scheme, host and
     * port only. A key goes to every path of an origin, so a path (or query, fragment, user name)
     * would restrict nothing; it is refused rather than silently cut off (`bareOrigin`).
     */
    origins: z
      .array(z.url({ protocol: /^https?$/, error: "each origin must be an http(s) URL" }).superRefine(bareOrigin))
      .max(20)
      .default([]),
    /** Sets the shared ProviderLimiter for this key (a run's own limits only ever lower that run's share). */
    limits: ModelLimits.optional(),
  })
  .superRefine((b, ctx) => {
    // An mcp token goes only to its origins and paces nothing: without origins it could never be
    // sent, and limits on it would be ignored; both are refused here rather than found at run time.
    if (b.interface !== "mcp") return;
    if (b.origins.length === 0) {
      ctx.addIssue({
        code: "custom",
        path: ["origins"],
        input: b.origins,
        message: "an mcp token is sent only to MCP servers at its origins: list them (e.g. https://mcp.example.com)",
      });
    }
    if (b.limits !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["limits"],
        input: b.limits,
        message: "limits pace a provider key's model calls; an mcp token has none, so remove them",
      });
    }
  });

export const UsageQuery = z.strictObject({
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, { error: "month must be a UTC calendar month, YYYY-MM" })
    .optional(),
});
