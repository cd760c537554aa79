/** A tenant's own settings: API keys, provider secrets, usage, audit log; and the operator's /v1/admin. */
import { ListQuery } from "../../schemas/api";
import {
  CreateKeyRequest,
  CreateTenantRequest,
  IssueTenantKeyRequest,
  PutSecretRequest,
  RotateKeyRequest,
  UpdateTenantRequest,
  UsageQuery,
} from "../../schemas/tenants";
import {
  AuditPage,
  CreatedTenant,
  DeletedSecret,
  KeyList,
  KeyView,
  MintedKey,
  MonthUsage,
  SecretList,
  SecretView,
  TenantList,
  TenantResponse,
} from "../../schemas/tenant-views";
import { ADMIN_BODY_LIMIT, KEY_BODY_LIMIT, SECRET_BODY_LIMIT } from "../../schemas/body-limits";
import type { Operation } from "../operation";

const keysAdmin = { kind: "tenant", scope: "keys:admin" } as const;
const secretsWrite = { kind: "tenant", scope: "secrets:write" } as const;
const keyId = { id: "A key_id from GET /v1/keys." };
const secretName = { name: "The secret's name, as a model's api_key_secret names it (A-Z, 0-9, _)." };
const tenantId = { id: "The tenant_id." };

export const TENANT_OPERATIONS: Operation[] = [
  {
    method: "post",
    path: "/v1/keys",
    operationId: "createKey",
    tag: "keys",
    summary: "Create an API key (shown once)",
    description:
      "A key may grant only scopes it holds itself, and mints no key that outlives it: if it expires, `expires_at` must be at or before its own (past it, or `null`, is a 403); left out, the new key gets the minting key's expiry (none for a key without one).",
    auth: keysAdmin,
    body: { schema: CreateKeyRequest, maxBytes: KEY_BODY_LIMIT.bytes, example: { name: "ci", scopes: ["runs:write", "runs:read"] } },
    responses: { 201: { description: "The key; `key` is not shown again.", schema: MintedKey } },
  },
  {
    method: "get",
    path: "/v1/keys",
    operationId: "listKeys",
    tag: "keys",
    summary: "The tenant's API keys, newest first",
    auth: keysAdmin,
    query: ListQuery,
    responses: {
      200: { description: "One page of keys, revoked ones included; follow next_cursor until it is null.", schema: KeyList },
    },
  },
  {
    method: "post",
    path: "/v1/keys/:id/rotate",
    operationId: "rotateKey",
    tag: "keys",
    summary: "Mint a key with the same name, scopes and lifetime",
    description:
      "The old key stays valid until it is revoked (DELETE), so clients can switch over without downtime. The new key's `expires_at` is the one sent (`null`: it never expires); without one, the old key's lifetime (its `expires_at` − `created_at`) from now, and no expiry for a key that had none. Never past the expiry of the key calling (a 403 if sent so; cut to it if left out).",
    auth: keysAdmin,
    pathParams: keyId,
    body: { schema: RotateKeyRequest, maxBytes: KEY_BODY_LIMIT.bytes, example: {}, optional: true },
    responses: { 201: { description: "The new key, shown once.", schema: MintedKey } },
  },
  {
    method: "delete",
    path: "/v1/keys/:id",
    operationId: "revokeKey",
    tag: "keys",
    summary: "Revoke a key",
    auth: keysAdmin,
    pathParams: keyId,
    responses: { 200: { description: "The key, with revoked_at set.", schema: KeyView } },
  },
  {
    method: "get",
    path: "/v1/secrets",
    operationId: "listSecrets",
    tag: "secrets",
    summary: "The tenant's provider keys (names and metadata, never values), newest first",
    description: "Ordered by when each name was first set (replacing a secret keeps its place), the name breaking ties.",
    auth: secretsWrite,
    query: ListQuery,
    responses: { 200: { description: "One page; follow next_cursor until it is null.", schema: SecretList } },
  },
  {
    method: "put",
    path: "/v1/secrets/:name",
    operationId: "putSecret",
    tag: "secrets",
    summary: "Set a provider key for the tenant's models",
    description:
      "Sealed with AES-256-GCM before it is stored; the value never comes back. Sent only to its interface's provider origin or the `origins` listed, each a scheme, host and port (the key may go to any path there, so an origin with a path, query, fragment or user name is a 400).",
    auth: secretsWrite,
    pathParams: secretName,
    body: { schema: PutSecretRequest, maxBytes: SECRET_BODY_LIMIT.bytes, example: { value: "sk-your-provider-key", interface: "openai" } },
    responses: { 201: { description: "Created.", schema: SecretView }, 200: { description: "Replaced.", schema: SecretView } },
  },
  {
    method: "delete",
    path: "/v1/secrets/:name",
    operationId: "deleteSecret",
    tag: "secrets",
    summary: "Delete a provider key",
    auth: secretsWrite,
    pathParams: secretName,
    responses: { 200: { description: "Deleted.", schema: DeletedSecret } },
  },
  {
    method: "get",
    path: "/v1/usage",
    operationId: "getUsage",
    tag: "usage",
    summary: "Calls, tokens and cost per model in one UTC month",
    auth: { kind: "tenant", scope: "runs:read" },
    query: UsageQuery,
    responses: { 200: { description: "The month's usage (default: this month).", schema: MonthUsage } },
  },
  {
    method: "get",
    path: "/v1/audit",
    operationId: "listAudit",
    tag: "audit",
    summary: "The tenant's audit log, newest first",
    auth: keysAdmin,
    query: ListQuery,
    responses: { 200: { description: "One page; follow next_cursor until it is null.", schema: AuditPage } },
  },
  {
    method: "post",
    path: "/v1/admin/tenants",
    operationId: "createTenant",
    tag: "admin",
    summary: "Create a tenant with its first key (operator)",
    auth: { kind: "admin" },
    body: { schema: CreateTenantRequest, maxBytes: ADMIN_BODY_LIMIT.bytes, example: { name: "Acme", tenant_id: "acme" } },
    responses: { 201: { description: "The tenant and its first key (shown once).", schema: CreatedTenant } },
  },
  {
    method: "get",
    path: "/v1/admin/tenants",
    operationId: "listTenants",
    tag: "admin",
    summary: "Every tenant, newest first (operator)",
    description:
      "Each tenant's settings, the quotas in force (`effective_limits`: its overrides over the defaults) and `active_keys`, how many of its keys are neither revoked nor expired (0: only the operator can issue it one; the deployment token, which acts for `default`, is not a key and is not counted). Never a key, a hash or a secret.",
    auth: { kind: "admin" },
    query: ListQuery,
    responses: { 200: { description: "One page of tenants; follow next_cursor until it is null.", schema: TenantList } },
  },
  {
    method: "post",
    path: "/v1/admin/tenants/:id/keys",
    operationId: "issueTenantKey",
    tag: "admin",
    summary: "Issue a key to a tenant (operator)",
    description:
      "For a tenant with no key left that could create one (every keys:admin key expired or revoked). By default the key holds every scope. Audited as key.created by the operator.",
    auth: { kind: "admin" },
    pathParams: tenantId,
    body: {
      schema: IssueTenantKeyRequest,
      maxBytes: ADMIN_BODY_LIMIT.bytes,
      example: { name: "recovery", scopes: ["keys:admin"] },
      optional: true,
    },
    responses: { 201: { description: "The key, shown only here.", schema: MintedKey } },
  },
  {
    method: "get",
    path: "/v1/admin/tenants/:id",
    operationId: "getTenant",
    tag: "admin",
    summary: "A tenant's settings (operator)",
    auth: { kind: "admin" },
    pathParams: tenantId,
    responses: { 200: { description: "The tenant.", schema: TenantResponse } },
  },
  {
    method: "patch",
    path: "/v1/admin/tenants/:id",
    operationId: "updateTenant",
    tag: "admin",
    summary: "Change a tenant's name, quotas, retention or state (operator)",
    description:
      "`disabled: true` refuses the tenant's keys, and each of its runs still queued or running is cancelled when its next job is delivered, before any model call (audited as run.cancelled by operator, reason tenant disabled). `limits` replaces the overrides; `{}` restores the defaults. A body with no field is a 400.",
    auth: { kind: "admin" },
    pathParams: tenantId,
    body: { schema: UpdateTenantRequest, maxBytes: ADMIN_BODY_LIMIT.bytes, example: { limits: { requests_per_minute: 1200 } } },
    responses: { 200: { description: "The tenant as changed.", schema: TenantResponse } },
  },
];
