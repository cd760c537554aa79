/**
 * /v1/triggers (src/triggers/README.md): a tenant's inbound triggers. The signing secret is in the
 * response that creates the trigger and nowhere else (sealed in D1). Scopes: triggers:write to
 * create and delete (it lets a payload start runs), triggers:read to look.
 */
import { Hono } from "hono";
import { KekMissing, type Sealed } from "../lib/secret-crypto";
import { CreateRunRequest, ListQuery } from "../schemas/api";
import { CreateTriggerRequest } from "../schemas/triggers";
import { RotateSecretRequest } from "../schemas/webhooks";
import { actorOf, auditIfChanged, auditStatement } from "../tenants/audit";
import {
  deleteTrigger,
  getTrigger,
  insertTrigger,
  listTriggers,
  mintTriggerId,
  rotateTriggerStatement,
  sealTriggerSecret,
  type TriggerRecord,
  triggerView,
} from "../triggers/triggers-repo";
import { mintSigningSecret } from "../webhooks/signing";
import { type AppEnv, requireScope, tenantOf } from "./auth";
import { readJson, readOptionalJson, validate, validateQuery } from "./body";
import { decodeCreatedCursor, nextCreatedCursor } from "./cursor";
import { reply } from "./reply";
import { TRIGGER_BODY_LIMIT } from "../schemas/body-limits";
import { DeletedTrigger, TriggerList, TriggerView, TriggerWithSecret } from "../schemas/trigger-views";
import { ApiFailure, invalidBody } from "./errors";
import { requireBenchmarkId, requireEndpoints } from "./submit-run";
import { configModelIssues } from "../submit/plan";
import { loadKeyRing } from "../tenants/key-ring";
import { secretAdvice } from "../env";
import { applyPreset } from "../presets/apply";
import { getPreset } from "../presets/presets-repo";
import { requestOrigin } from "../webhooks/links";

export const triggers = new Hono<AppEnv>();

triggers.post("/", requireScope("triggers:write"), async (c) => {
  const body = validate(CreateTriggerRequest, (await readJson(c, TRIGGER_BODY_LIMIT)).value);
  const tenantId = tenantOf(c).tenant_id;
  // The stored config (over its preset) and endpoints must make a valid run body before any payload is mapped in.
  const base = {
    benchmark_id: body.benchmark_id,
    ...(body.preset_id ? { preset_id: body.preset_id } : {}),
    config: body.config,
    webhook_endpoint_ids: body.webhook_endpoint_ids,
  };
  const applied = await applyPreset(base, (id) => getPreset(c.env.DB, tenantId, id));
  if (!applied.ok) throw invalidBody(applied.issues);
  const run = validate(CreateRunRequest, applied.body);
  // As POST /v1/runs would refuse them, so a trigger cannot be stored that every delivery would fail.
  // Not a whole dry run: what a run plans (manual answers, the questions) may come from the payload.
  await requireBenchmarkId(c.env, tenantId, body.benchmark_id);
  await requireEndpoints(c.env, tenantId, body.webhook_endpoint_ids ?? []);
  // Its models too (a base_url or key destination refused); a key not set yet may be set before a delivery.
  const models = configModelIssues(run.config, [], await loadKeyRing(c.env, tenantOf(c), run.config), (name) => secretAdvice(name, c.env));
  if (models.issues.length) throw invalidBody(models.issues);
  const triggerId = mintTriggerId();
  const secret = mintSigningSecret();
  const sealed = await sealed_(c.env.EDGEVAL_SECRETS_KEK, tenantId, triggerId, secret);
  const record: TriggerRecord = {
    trigger_id: triggerId,
    tenant_id: tenantId,
    name: body.name,
    spec: {
      benchmark_id: body.benchmark_id,
      ...(body.preset_id ? { preset_id: body.preset_id } : {}),
      config: body.config,
      webhook_endpoint_ids: body.webhook_endpoint_ids,
      mapping: body.mapping,
    },
    signing: body.signing,
    sealed,
    previous: null,
    created_at: new Date().toISOString(),
  };
  // One batch: a trigger whose entry failed was live with a secret no one was shown, and a retry made a second.
  await c.env.DB.batch([
    insertTrigger(c.env.DB, record),
    auditStatement(c.env.DB, {
      tenant_id: tenantId,
      actor: actorOf(c.get("principal")),
      action: "trigger.created",
      target: triggerId,
      detail: { scheme: body.signing.scheme },
    }),
  ]);
  return reply(c, TriggerWithSecret, { ...triggerView(record, requestOrigin(c)), secret }, 201);
});

/**
 * A new secret, shown once; the replaced one still verifies deliveries for overlap_seconds (default
 * 24 h), so the sender can be moved over without refused deliveries. One previous secret at a time.
 */
triggers.post("/:id/rotate-secret", requireScope("triggers:write"), async (c) => {
  const tenantId = tenantOf(c).tenant_id;
  const t = await getTrigger(c.env.DB, tenantId, c.req.param("id"));
  if (!t) throw notFound(c.req.param("id"));
  const body = validate(RotateSecretRequest, (await readOptionalJson(c, TRIGGER_BODY_LIMIT)).value);
  const secret = mintSigningSecret();
  const next = await sealed_(c.env.EDGEVAL_SECRETS_KEK, tenantId, t.trigger_id, secret);
  const prevExpiresAt = new Date(Date.now() + body.overlap_seconds * 1000).toISOString();
  // The update and its audit entry commit together; a trigger deleted meanwhile is a 404, audited nowhere.
  const [rotated] = await c.env.DB.batch([
    rotateTriggerStatement(c.env.DB, t, next, prevExpiresAt),
    auditIfChanged(c.env.DB, {
      tenant_id: tenantId,
      actor: actorOf(c.get("principal")),
      action: "trigger.secret_rotated",
      target: t.trigger_id,
      detail: { overlap_seconds: body.overlap_seconds },
    }),
  ]);
  if (!rotated?.meta.changes) throw notFound(t.trigger_id);
  const view = triggerView({ ...t, sealed: next, previous: { sealed: t.sealed, expires_at: prevExpiresAt } }, requestOrigin(c));
  return reply(c, TriggerWithSecret, { ...view, secret }, 201);
});

triggers.get("/", requireScope("triggers:read"), async (c) => {
  const q = validateQuery(ListQuery, c.req.queries());
  const rows = await listTriggers(c.env.DB, tenantOf(c).tenant_id, q.limit, decodeCreatedCursor(q.cursor));
  return reply(c, TriggerList, {
    triggers: rows.map((t) => triggerView(t, requestOrigin(c))),
    next_cursor: nextCreatedCursor(rows, q.limit, (t) => t.trigger_id),
  });
});

triggers.get("/:id", requireScope("triggers:read"), async (c) => {
  const t = await getTrigger(c.env.DB, tenantOf(c).tenant_id, c.req.param("id"));
  if (!t) throw notFound(c.req.param("id"));
  return reply(c, TriggerView, triggerView(t, requestOrigin(c)));
});

triggers.delete("/:id", requireScope("triggers:write"), async (c) => {
  const tenantId = tenantOf(c).tenant_id;
  const t = await getTrigger(c.env.DB, tenantId, c.req.param("id"));
  if (!t) throw notFound(c.req.param("id"));
  // One batch, the entry written only if the delete removed the row: apart, a failed entry left the
  // trigger deleted unaudited and its retry a 404; a delete racing this one is audited once.
  const [deleted] = await c.env.DB.batch([
    deleteTrigger(c.env.DB, tenantId, t.trigger_id),
    auditIfChanged(c.env.DB, {
      tenant_id: tenantId,
      actor: actorOf(c.get("principal")),
      action: "trigger.deleted",
      target: t.trigger_id,
      detail: {},
    }),
  ]);
  if (!deleted?.meta.changes) throw notFound(t.trigger_id);
  return reply(c, DeletedTrigger, { trigger_id: t.trigger_id, deleted: true });
});

const notFound = (id: string) => new ApiFailure({ code: "not_found", message: `no trigger ${id}; list them with GET /v1/triggers` });

/** A trigger's secret sealed under the deployment's KEK; without one, a 503 that says how to set it. */
async function sealed_(kek: unknown, tenantId: string, triggerId: string, secret: string): Promise<Sealed> {
  try {
    return await sealTriggerSecret(kek, tenantId, triggerId, secret);
  } catch (err) {
    if (err instanceof KekMissing)
      throw new ApiFailure({
        code: "not_configured",
        message: "triggers need the EDGEVAL_SECRETS_KEK secret (wrangler secret put EDGEVAL_SECRETS_KEK)",
      });
    throw err;
  }
}
