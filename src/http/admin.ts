/**
 * /v1/admin: the operator (EDGEVAL_ADMIN_TOKEN) creates and lists tenants, issues a tenant its first
 * key (or one more), lists and revokes its keys, reads its usage, and changes its settings and
 * quotas. Tenants manage further keys themselves (/v1/keys).
 */
import { Hono } from "hono";
import { prefixedId } from "../lib/ids";
import { CreateTenantRequest, IssueTenantKeyRequest, TenantId, UpdateTenantRequest, UsageQuery } from "../schemas/tenants";
import { monthOf } from "../tenants/usage";
import { monthUsageView } from "./usage";
import { auditIfChanged, auditStatement, OPERATOR } from "../tenants/audit";
import { mintKey } from "../tenants/issue-key";
import { forgetKey, forgetTenant } from "../tenants/auth-cache";
import { getKey, insertKey, keyView, listKeys, revokeKey } from "../tenants/keys-repo";
import { ListQuery } from "../schemas/api";
import { effectiveLimits, mergeLimitOverrides } from "../tenants/limits";
import {
  activeKeyCounts,
  getTenant,
  insertTenant,
  listTenants,
  type TenantRecord,
  tenantView,
  updateTenant,
} from "../tenants/tenants-repo";
import { type AppEnv, adminAuth } from "./auth";
import { readJson, readOptionalJson, validate, validateQuery } from "./body";
import { decodeCreatedCursor, nextCreatedCursor } from "./cursor";
import { ApiFailure, invalidBody } from "./errors";
import { futureExpiry, keyPepper } from "./keys";
import { reply } from "./reply";
import {
  CreatedTenant,
  KeyList,
  KeyView,
  type ListedTenant,
  ListedTenantResponse,
  IssuedTenantKey,
  MonthUsage,
  TenantList,
  TenantResponse,
} from "../schemas/tenant-views";
import type { FieldWarning } from "../schemas/field-warning";
import type { z } from "zod";
import { ADMIN_BODY_LIMIT } from "../schemas/body-limits";
import { nextUpdatedAt } from "../lib/updated-at";

export const admin = new Hono<AppEnv>();
admin.use(adminAuth);

admin.post("/tenants", async (c) => {
  const body = validate(CreateTenantRequest, (await readJson(c, ADMIN_BODY_LIMIT)).value);
  const now = new Date().toISOString();
  const tenantId = body.tenant_id ?? prefixedId("t-", 16);
  if (await getTenant(c.env.DB, tenantId)) throw tenantExists(tenantId);
  const tenant: TenantRecord = {
    tenant_id: tenantId,
    name: body.name,
    use_deployment_keys: body.use_deployment_keys,
    limits_json: body.limits,
    retention_days: body.retention_days,
    disabled: false,
    created_at: now,
    updated_at: now,
  };
  const first = body.first_key;
  const minted = await mintKey(
    keyPepper(c.env),
    {
      tenant_id: tenantId,
      name: first.name,
      scopes: first.scopes,
      expires_at: futureExpiry(first.expires_at, "first_key.expires_at"),
      rotated_from: null,
    },
    now,
  );
  // One batch: a tenant never exists without its first key.
  const statements = [
    insertTenant(c.env.DB, tenant),
    insertKey(c.env.DB, minted.record),
    auditStatement(c.env.DB, {
      tenant_id: tenantId,
      actor: OPERATOR,
      action: "tenant.created",
      target: tenantId,
      // The settings it starts with (use_deployment_keys lets it spend the deployment's keys), as
      // tenant.updated records what changes them.
      detail: {
        first_key: minted.record.key_id,
        name: tenant.name,
        use_deployment_keys: tenant.use_deployment_keys,
        limits: tenant.limits_json,
        retention_days: tenant.retention_days,
      },
    }),
    auditStatement(c.env.DB, {
      tenant_id: tenantId,
      actor: OPERATOR,
      action: "key.created",
      target: minted.record.key_id,
      detail: { name: first.name, scopes: first.scopes, expires_at: minted.record.expires_at },
    }),
  ];
  try {
    await c.env.DB.batch(statements);
  } catch (err) {
    // A create of the same tenant_id that ran side by side (a provisioning script retrying on a
    // timeout) inserted it first: the batch rolled back whole, and the answer is the same 400 as
    // when the tenant existed before this request began.
    if (await getTenant(c.env.DB, tenantId)) throw tenantExists(tenantId);
    throw err;
  }
  return reply(c, CreatedTenant, { tenant: tenantView(tenant), key: { ...keyView(minted.record), key: minted.key } }, 201);
});

/** Every tenant, newest first, a page at a time: settings, quotas in force, working keys (never key material). */
admin.get("/tenants", async (c) => {
  const q = validateQuery(ListQuery, c.req.queries());
  const rows = await listTenants(c.env.DB, q.limit, decodeCreatedCursor(q.cursor));
  return reply(c, TenantList, {
    tenants: await listedTenants(c.env.DB, rows),
    next_cursor: nextCreatedCursor(rows, q.limit, (t) => t.tenant_id),
  });
});

/** Tenants as the operator reads them: settings, the quotas in force, how many keys work now (one read for all). */
async function listedTenants(db: D1Database, rows: readonly TenantRecord[]): Promise<z.input<typeof ListedTenant>[]> {
  const keys = await activeKeyCounts(
    db,
    rows.map((t) => t.tenant_id),
    new Date().toISOString(),
  );
  return rows.map((t) => ({ ...tenantView(t), effective_limits: effectiveLimits(t.limits_json), active_keys: keys.get(t.tenant_id) ?? 0 }));
}

/**
 * A key for an existing tenant: the way back for a tenant whose keys that could create one have
 * all expired or been revoked (POST /v1/keys needs such a key).
 */
admin.post("/tenants/:id/keys", async (c) => {
  const tenant = await requireTenant(c.env.DB, c.req.param("id"));
  const body = validate(IssueTenantKeyRequest, (await readOptionalJson(c, ADMIN_BODY_LIMIT)).value);
  const minted = await mintKey(
    keyPepper(c.env),
    {
      tenant_id: tenant.tenant_id,
      name: body.name,
      scopes: body.scopes,
      expires_at: futureExpiry(body.expires_at, "expires_at"),
      rotated_from: null,
    },
    new Date().toISOString(),
  );
  await c.env.DB.batch([
    insertKey(c.env.DB, minted.record),
    auditStatement(c.env.DB, {
      tenant_id: tenant.tenant_id,
      actor: OPERATOR,
      action: "key.created",
      target: minted.record.key_id,
      detail: { name: body.name, scopes: body.scopes, expires_at: minted.record.expires_at },
    }),
  ]);
  return reply(c, IssuedTenantKey, { ...keyView(minted.record), key: minted.key, warnings: issuedKeyWarnings(tenant) }, 201);
});

/**
 * A key issued to a disabled tenant is minted (the operator may be preparing its return) but every
 * request with it is refused until the tenant is enabled: the answer says so, or the operator hands
 * on a key that fails at once with nothing to tell why.
 */
function issuedKeyWarnings(tenant: TenantRecord): FieldWarning[] {
  if (!tenant.disabled) return [];
  const id = tenant.tenant_id;
  return [
    {
      path: "tenant.disabled",
      message: `tenant ${id} is disabled: this key is refused (403 tenant_disabled) until the tenant is enabled with PATCH /v1/admin/tenants/${id} {"disabled": false}`,
    },
  ];
}

/** A tenant's keys, as GET /v1/keys lists them (newest first, revoked ones included; never a key or its hash). */
admin.get("/tenants/:id/keys", async (c) => {
  const tenant = await requireTenant(c.env.DB, c.req.param("id"));
  const q = validateQuery(ListQuery, c.req.queries());
  const rows = await listKeys(c.env.DB, tenant.tenant_id, q.limit, decodeCreatedCursor(q.cursor));
  return reply(c, KeyList, { keys: rows.map(keyView), next_cursor: nextCreatedCursor(rows, q.limit, (k) => k.key_id) });
});

/**
 * Revokes one of a tenant's keys: a leaked key reported to the operator is stopped without
 * disabling the whole tenant. Audited as key.revoked by the operator, in the same batch (only if
 * it changed a row, so a repeat writes nothing); refused at once by this isolate, within
 * AUTH_CACHE_MS by the others (src/tenants/auth-cache.ts).
 */
admin.delete("/tenants/:id/keys/:key_id", async (c) => {
  const tenant = await requireTenant(c.env.DB, c.req.param("id"));
  const keyId = c.req.param("key_id");
  const [revoked] = await c.env.DB.batch([
    revokeKey(c.env.DB, tenant.tenant_id, keyId, new Date().toISOString()),
    auditIfChanged(c.env.DB, { tenant_id: tenant.tenant_id, actor: OPERATOR, action: "key.revoked", target: keyId, detail: {} }),
  ]);
  if (revoked!.meta.changes > 0) forgetKey(keyId);
  const key = await getKey(c.env.DB, tenant.tenant_id, keyId);
  if (!key) {
    throw new ApiFailure({
      code: "not_found",
      message: `tenant ${tenant.tenant_id} has no key ${keyId}; list them with GET /v1/admin/tenants/${tenant.tenant_id}/keys`,
    });
  }
  return reply(c, KeyView, keyView(key));
});

admin.get("/tenants/:id", async (c) => {
  const [tenant] = await listedTenants(c.env.DB, [await requireTenant(c.env.DB, c.req.param("id"))]);
  return reply(c, ListedTenantResponse, { tenant: tenant! });
});

/** A tenant's usage and cost in one UTC month, as the tenant sees it at GET /v1/usage (the operator bills and watches spend). */
admin.get("/tenants/:id/usage", async (c) => {
  const tenant = await requireTenant(c.env.DB, c.req.param("id"));
  const q = validateQuery(UsageQuery, c.req.queries());
  return reply(c, MonthUsage, await monthUsageView(c.env.DB, tenant, q.month ?? monthOf(Date.now())));
});

/** A PATCH redoes its read and write at most this often while other writes to the tenant land in between. */
const PATCH_ATTEMPTS = 5;

admin.patch("/tenants/:id", async (c) => {
  let tenant = await requireTenant(c.env.DB, c.req.param("id"));
  const body = validate(UpdateTenantRequest, (await readJson(c, ADMIN_BODY_LIMIT)).value);
  for (let attempt = 1; ; attempt++) {
    const next = await patchTenant(c.env.DB, tenant, body);
    if (next) {
      forgetTenant(next.tenant_id);
      return reply(c, TenantResponse, { tenant: tenantView(next) });
    }
    if (attempt === PATCH_ATTEMPTS)
      throw new ApiFailure({ code: "internal", message: `tenant ${tenant.tenant_id} kept changing while this PATCH ran; send it again` });
    // Another write landed between the read and this write: apply the body to the tenant as it is now.
    tenant = await requireTenant(c.env.DB, tenant.tenant_id);
  }
});

/** The body applied to the tenant as read, with its audit entry; null (nothing written) if the row changed since the read. */
async function patchTenant(db: D1Database, tenant: TenantRecord, body: z.output<typeof UpdateTenantRequest>): Promise<TenantRecord | null> {
  const next: TenantRecord = {
    ...tenant,
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.use_deployment_keys !== undefined ? { use_deployment_keys: body.use_deployment_keys } : {}),
    ...(body.limits !== undefined ? { limits_json: mergeLimitOverrides(tenant.limits_json, body.limits) } : {}),
    ...(body.retention_days !== undefined ? { retention_days: body.retention_days } : {}),
    ...(body.disabled !== undefined ? { disabled: body.disabled } : {}),
    updated_at: nextUpdatedAt(Date.now(), tenant.updated_at),
  };
  // Each field sent, as it was and as it is: "changed: [disabled]" alone cannot tell disabling
  // from enabling, nor which quota a tenant now has.
  const changed = Object.keys(body) as (keyof typeof body)[];
  const fields = (view: ReturnType<typeof tenantView>) => Object.fromEntries(changed.map((k) => [k, view[k]]));
  // One batch: the change and its audit entry land together or not at all, the entry only if the row was as read.
  const [updated] = await db.batch([
    updateTenant(db, next, tenant.updated_at),
    auditIfChanged(db, {
      tenant_id: next.tenant_id,
      actor: OPERATOR,
      action: "tenant.updated",
      target: next.tenant_id,
      detail: { changed, from: fields(tenantView(tenant)), to: fields(tenantView(next)) },
    }),
  ]);
  return updated?.meta.changes ? next : null;
}

async function requireTenant(db: D1Database, id: string): Promise<TenantRecord> {
  const tenant = TenantId.safeParse(id).success ? await getTenant(db, id) : null;
  if (!tenant) throw new ApiFailure({ code: "not_found", message: `no tenant ${id}; list them with GET /v1/admin/tenants` });
  return tenant;
}

const tenantExists = (tenantId: string) =>
  invalidBody([{ path: "tenant_id", message: `tenant ${tenantId} exists already; change it with PATCH /v1/admin/tenants/${tenantId}` }]);
