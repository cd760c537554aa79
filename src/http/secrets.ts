/**
 * /v1/secrets: a tenant's own provider keys (scope secrets:write). Values are sealed with
 * AES-256-GCM before they reach D1 (src/tenants/secret-crypto.ts) and never come back out:
 * responses, logs, queue messages and results carry names and metadata only.
 */
import { Hono } from "hono";
import { isLocalMode } from "../env";
import { ListQuery } from "../schemas/api";
import { PutSecretRequest, SecretName } from "../schemas/tenants";
import { actorOf, auditIfChanged, auditStatement } from "../tenants/audit";
import { KekMissing, parseKek, seal, secretAad } from "../lib/secret-crypto";
import { deleteSecret, getSecret, listSecrets, type SecretRecord, secretView, upsertSecret } from "../tenants/secrets-repo";
import { type AppEnv, requireScope, tenantOf } from "./auth";
import { readJson, validate, validateQuery } from "./body";
import { decodeCreatedCursor, nextCreatedCursor } from "./cursor";
import { ApiFailure, invalidBody } from "./errors";
import { reply } from "./reply";
import { DeletedSecret, SecretList, SecretView } from "../schemas/tenant-views";
import { SECRET_BODY_LIMIT } from "../schemas/body-limits";

export const secrets = new Hono<AppEnv>();
secrets.use(requireScope("secrets:write"));

secrets.get("/", async (c) => {
  const q = validateQuery(ListQuery, c.req.queries());
  const rows = await listSecrets(c.env.DB, tenantOf(c).tenant_id, q.limit, decodeCreatedCursor(q.cursor));
  return reply(c, SecretList, { secrets: rows.map(secretView), next_cursor: nextCreatedCursor(rows, q.limit, (s) => s.name) });
});

secrets.put("/:name", async (c) => {
  const name = secretName(c.req.param("name"));
  const body = validate(PutSecretRequest, (await readJson(c, SECRET_BODY_LIMIT)).value);
  const origins = body.origins.map((u, i) => {
    const url = new URL(u);
    if (url.protocol !== "https:" && !isLocalMode(c.env)) {
      throw invalidBody([{ path: `origins[${i}]`, message: "keys go only to https origins (http is allowed in local mode only)" }]);
    }
    return url.origin;
  });
  const tenantId = tenantOf(c).tenant_id;
  let sealed: Awaited<ReturnType<typeof seal>>;
  try {
    sealed = await seal(parseKek(c.env.EDGEVAL_SECRETS_KEK), secretAad(tenantId, name), body.value);
  } catch (err) {
    if (err instanceof KekMissing) {
      throw new ApiFailure({
        code: "not_configured",
        message: "tenant secrets need the EDGEVAL_SECRETS_KEK secret (wrangler secret put EDGEVAL_SECRETS_KEK)",
      });
    }
    throw err;
  }
  const now = new Date().toISOString();
  const existing = await getSecret(c.env.DB, tenantId, name);
  const record: SecretRecord = {
    tenant_id: tenantId,
    name,
    interface: body.interface,
    origins_json: [...new Set(origins)],
    limits_json: body.limits ?? null,
    ...sealed,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  // `replaced` tells a rotation from a first set; limits change how hard the key may be used.
  const detail = { interface: body.interface, origins: record.origins_json, limits: record.limits_json, replaced: existing !== null };
  // One batch: the secret and its audit entry land together or not at all.
  await c.env.DB.batch([
    upsertSecret(c.env.DB, record),
    auditStatement(c.env.DB, { tenant_id: tenantId, actor: actorOf(c.get("principal")), action: "secret.set", target: name, detail }),
  ]);
  return reply(c, SecretView, secretView(record), existing ? 200 : 201);
});

secrets.delete("/:name", async (c) => {
  const name = c.req.param("name");
  const tenantId = tenantOf(c).tenant_id;
  const notFound = () => new ApiFailure({ code: "not_found", message: `no secret ${name}; list them with GET /v1/secrets` });
  if (!SecretName.safeParse(name).success) throw notFound();
  const [deleted] = await c.env.DB.batch([
    deleteSecret(c.env.DB, tenantId, name),
    auditIfChanged(c.env.DB, {
      tenant_id: tenantId,
      actor: actorOf(c.get("principal")),
      action: "secret.deleted",
      target: name,
      detail: {},
    }),
  ]);
  if (deleted!.meta.changes === 0) throw notFound();
  return reply(c, DeletedSecret, { name, deleted: true });
});

function secretName(raw: string): string {
  const parsed = SecretName.safeParse(raw);
  if (!parsed.success) throw invalidBody([{ path: "path name", message: parsed.error.issues[0]!.message }]);
  return parsed.data;
}
