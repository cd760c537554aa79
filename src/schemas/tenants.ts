/** Wire shapes of the tenant routes: /v1/admin/tenants (operator) and /v1/keys (a tenant's own keys). */
import { z } from "zod";
import { LimitOverrides } from "../tenants/limits";
import { ScopeList, SCOPES } from "../tenants/scopes";

/** Goes into R2 keys (`t/{tenant}/…`) and Durable Object names (`{tenant}:{run}`): no `/` or `:`. */
export const TenantId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, { error: "tenant_id must be 1-40 characters of a-z, 0-9 and -, starting with a letter or digit" });

const KeyName = z.string().min(1, { error: "name must not be empty" }).max(100);
/** An absolute time in the future; checked against the clock by the route. */
const ExpiresAt = z.iso.datetime({ offset: true, error: "expires_at must be an ISO 8601 time, e.g. 2027-01-31T00:00:00Z" }).nullable().optional();
const RetentionDays = z.number().int().min(1, { error: "retention_days must be a whole number ≥ 1" }).max(36_500).nullable();

export const CreateKeyRequest = z.strictObject({
  name: KeyName,
  scopes: ScopeList,
  expires_at: ExpiresAt,
});
export type CreateKeyRequest = z.infer<typeof CreateKeyRequest>;

export const RotateKeyRequest = z.strictObject({ expires_at: ExpiresAt });

export const CreateTenantRequest = z.strictObject({
  tenant_id: TenantId.optional(),
  name: z.string().min(1, { error: "name must not be empty" }).max(200),
  use_deployment_keys: z.boolean().default(false),
  limits: LimitOverrides.default({}),
  retention_days: RetentionDays.default(null),
  /** The tenant's first key; by default it holds every scope. */
  first_key: z
    .strictObject({ name: KeyName.default("first key"), scopes: ScopeList.default([...SCOPES]), expires_at: ExpiresAt })
    .default({ name: "first key", scopes: [...SCOPES] }),
});

export const UpdateTenantRequest = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  use_deployment_keys: z.boolean().optional(),
  /** Replaces the overrides; `{}` restores the defaults. */
  limits: LimitOverrides.optional(),
  retention_days: RetentionDays.optional(),
  disabled: z.boolean().optional(),
});
