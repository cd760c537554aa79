/**
 * What the tenant routes answer: /v1/keys, /v1/secrets, /v1/usage, /v1/audit and the operator's
 * /v1/admin/tenants. The views in src/tenants/*-repo.ts are typed by these (`z.input<…>`).
 */
import { z } from "zod";
import { LimitOverrides } from "./tenants";
import { Scope } from "./scopes";
import { ModelLimits } from "./api";
import { FieldWarning } from "./field-warning";

export const KeyView = z.strictObject({
  key_id: z.string(),
  name: z.string(),
  scopes: z.array(Scope),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  rotated_from: z.string().nullable(),
});

/** A key as minted (create, rotate, a tenant's first key): `key` is shown here only, never again. */
export const MintedKey = KeyView.extend({ key: z.string() });
/** A key the operator issued to an existing tenant: `warnings` says, e.g., that the tenant is disabled, so the key is refused for now. */
export const IssuedTenantKey = MintedKey.extend({ warnings: z.array(FieldWarning) });
export const KeyList = z.strictObject({ keys: z.array(KeyView), next_cursor: z.string().nullable() });

export const SecretView = z.strictObject({
  name: z.string(),
  interface: z.string(),
  origins: z.array(z.string()),
  limits: ModelLimits.nullable(),
  kek_version: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export const SecretList = z.strictObject({ secrets: z.array(SecretView), next_cursor: z.string().nullable() });
export const DeletedSecret = z.strictObject({ name: z.string(), deleted: z.literal(true) });

export const ModelMonthUsage = z.strictObject({
  model: z.string(),
  calls: z.number(),
  cached_calls: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  /** The priced calls' cost; the cost of `unpriced_calls` is unknown, not in it. */
  cost_usd: z.number(),
  unpriced_calls: z.number(),
});
export const MonthUsage = z.strictObject({
  month: z.string(),
  models: z.array(ModelMonthUsage),
  total: ModelMonthUsage.omit({ model: true }),
  monthly_spend_usd: z.number().nullable(),
});

export const AuditPage = z.strictObject({
  entries: z.array(
    z.strictObject({
      audit_id: z.string(),
      at: z.string(),
      /** `key:<key_id>`, `deployment_token` or `operator`; never a key or a secret. */
      actor: z.string(),
      action: z.string(),
      target: z.string(),
      detail: z.record(z.string(), z.unknown()),
    }),
  ),
  next_cursor: z.string().nullable(),
});

export const TenantView = z.strictObject({
  tenant_id: z.string(),
  name: z.string(),
  use_deployment_keys: z.boolean(),
  limits: LimitOverrides,
  retention_days: z.number().int().nullable(),
  disabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export const TenantResponse = z.strictObject({ tenant: TenantView });

/** The quotas in force: each override, else its documented default (src/tenants/limits.ts). */
export const EffectiveLimits = z.strictObject({
  requests_per_minute: z.number().int(),
  concurrent_runs: z.number().int(),
  jobs_per_run: z.number().int(),
  monthly_spend_usd: z.number().nullable(),
});

/** A tenant in the operator's list: its settings, the quotas in force, and how many keys work now (never a key). */
export const ListedTenant = TenantView.extend({
  effective_limits: EffectiveLimits,
  /** Keys neither revoked nor expired: 0 means only the operator can issue the tenant a key (the deployment token is not a key). */
  active_keys: z.number().int(),
});
export const TenantList = z.strictObject({ tenants: z.array(ListedTenant), next_cursor: z.string().nullable() });
/** GET /v1/admin/tenants/:id: the tenant as the list shows it. */
export const ListedTenantResponse = z.strictObject({ tenant: ListedTenant });
export const CreatedTenant = z.strictObject({ tenant: TenantView, key: MintedKey });
