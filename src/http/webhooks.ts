/**
 * /v1/webhook-endpoints (src/webhooks/README.md): a tenant's receivers of run events. The signing
 * secret is in the response that creates or rotates it, and nowhere else (sealed in D1).
 * Scopes: webhooks:write to change, webhooks:read to look (endpoints, deliveries).
 */
import { type Context, Hono } from "hono";
import { actorOf, type AuditAction, auditIfChanged } from "../tenants/audit";
import { prefixedId } from "../lib/ids";
import { KekMissing } from "../lib/secret-crypto";
import { listDeliveries, restartDelivery, getDelivery } from "../webhooks/deliveries-repo";
import { startDelivery } from "../webhooks/emit";
import {
  deleteEndpoint,
  type EndpointRecord,
  endpointView,
  getEndpoint,
  insertEndpoint,
  listEndpoints,
  MAX_ENDPOINTS_PER_TENANT,
  rotateEndpointSecret,
  updateEndpoint,
} from "../webhooks/endpoints-repo";
import { CreateEndpointRequest, RotateSecretRequest, TestEventRequest, UpdateEndpointRequest } from "../schemas/webhooks";
import { mintSigningSecret, sealSigningSecret } from "../webhooks/signing";
import { edgeConfig } from "../config";
import { outboundUrlIssue } from "../outbound/url-policy";
import { ListQuery } from "../schemas/api";
import { type AppEnv, requireScope, tenantOf } from "./auth";
import { readJson, readOptionalJson, validate, validateQuery } from "./body";
import { ENDPOINT_BODY_LIMIT } from "../schemas/body-limits";
import {
  DeletedEndpoint,
  DeliveryPage,
  EndpointList,
  EndpointView,
  EndpointWithSecret,
  RetriedDelivery,
  TestEventSent,
} from "../schemas/webhook-views";
import { requestOrigin } from "../webhooks/links";
import { sendTestEvent } from "../webhooks/test-event";
import { reply } from "./reply";
import { decodeCursor, encodeCursor } from "./cursor";
import { ApiFailure, invalidBody } from "./errors";

export const webhooks = new Hono<AppEnv>();

webhooks.post("/", requireScope("webhooks:write"), async (c) => {
  const body = validate(CreateEndpointRequest, (await readJson(c, ENDPOINT_BODY_LIMIT)).value);
  checkUrl(c, body.url);
  const tenantId = tenantOf(c).tenant_id;
  const endpointId = prefixedId("whe_");
  const secret = mintSigningSecret();
  const now = new Date().toISOString();
  const record: EndpointRecord = {
    tenant_id: tenantId,
    endpoint_id: endpointId,
    url: body.url,
    description: body.description,
    event_types_json: body.event_types,
    all_runs: body.all_runs,
    enabled: body.enabled,
    disabled_reason: null,
    ...(await sealed(c, tenantId, endpointId, secret)),
    prev_ciphertext: null,
    prev_iv: null,
    prev_kek_version: null,
    prev_expires_at: null,
    created_at: now,
    updated_at: now,
  };
  // The entry goes in the insert's batch: apart, a failed entry left a live endpoint with a secret no
  // one was shown, and the caller's retry made a second that got every event again.
  const entry = auditIfChanged(c.env.DB, auditEntry(c, "webhook.created", endpointId, { url: body.url, event_types: body.event_types }));
  if (!(await insertEndpoint(c.env.DB, record, [entry]))) {
    throw new ApiFailure({
      code: "endpoint_limit",
      message: `a tenant has at most ${MAX_ENDPOINTS_PER_TENANT} webhook endpoints; delete one (DELETE /v1/webhook-endpoints/:id), or widen an existing one's event_types or all_runs`,
    });
  }
  return reply(c, EndpointWithSecret, { ...endpointView(record), secret }, 201);
});

webhooks.get("/", requireScope("webhooks:read"), async (c) =>
  reply(c, EndpointList, { endpoints: (await listEndpoints(c.env.DB, tenantOf(c).tenant_id)).map(endpointView) }),
);

webhooks.get("/:id", requireScope("webhooks:read"), async (c) => reply(c, EndpointView, endpointView(await requireEndpoint(c))));

webhooks.patch("/:id", requireScope("webhooks:write"), async (c) => {
  const endpoint = await requireEndpoint(c);
  const body = validate(UpdateEndpointRequest, (await readJson(c, ENDPOINT_BODY_LIMIT)).value);
  if (body.url !== undefined) checkUrl(c, body.url);
  await changeAudited(
    c,
    updateEndpoint(c.env.DB, endpoint.tenant_id, endpoint.endpoint_id, body, new Date().toISOString()),
    auditEntry(c, "webhook.updated", endpoint.endpoint_id, { fields: Object.keys(body) }),
  );
  return reply(c, EndpointView, endpointView((await getEndpoint(c.env.DB, endpoint.tenant_id, endpoint.endpoint_id))!));
});

webhooks.delete("/:id", requireScope("webhooks:write"), async (c) => {
  const endpoint = await requireEndpoint(c);
  // The entry in the delete's batch, written only if the endpoint's row went (a racing delete: once).
  const entry = auditIfChanged(c.env.DB, auditEntry(c, "webhook.deleted", endpoint.endpoint_id, {}));
  if (!(await deleteEndpoint(c.env.DB, endpoint.tenant_id, endpoint.endpoint_id, [entry]))) throw endpointNotFound(endpoint.endpoint_id);
  return reply(c, DeletedEndpoint, { endpoint_id: endpoint.endpoint_id, deleted: true });
});

/** A new secret, shown once; the old one keeps signing beside it for overlap_seconds. */
webhooks.post("/:id/rotate-secret", requireScope("webhooks:write"), async (c) => {
  const endpoint = await requireEndpoint(c);
  const body = validate(RotateSecretRequest, (await readOptionalJson(c, ENDPOINT_BODY_LIMIT)).value);
  const secret = mintSigningSecret();
  const now = new Date();
  const prevExpiresAt = new Date(now.getTime() + body.overlap_seconds * 1000).toISOString();
  const next = await sealed(c, endpoint.tenant_id, endpoint.endpoint_id, secret);
  // Apart, a failed entry left a new secret no one was shown signing, and the retry's rotation
  // then dropped the secret the receiver held from the overlap: its deliveries failed to verify.
  await changeAudited(
    c,
    rotateEndpointSecret(c.env.DB, endpoint.tenant_id, endpoint.endpoint_id, next, prevExpiresAt, now.toISOString()),
    auditEntry(c, "webhook.secret_rotated", endpoint.endpoint_id, { overlap_seconds: body.overlap_seconds }),
  );
  return reply(
    c,
    EndpointWithSecret,
    { ...endpointView((await getEndpoint(c.env.DB, endpoint.tenant_id, endpoint.endpoint_id))!), secret },
    201,
  );
});

/** One signed `webhook.test` event to this endpoint now, whatever its event_types: the answer says how the receiver took it. */
webhooks.post("/:id/test", requireScope("webhooks:write"), async (c) => {
  const endpoint = await requireEndpoint(c);
  validate(TestEventRequest, (await readOptionalJson(c, ENDPOINT_BODY_LIMIT)).value);
  if (!endpoint.enabled) {
    throw new ApiFailure({
      code: "delivery_state",
      message: `endpoint ${endpoint.endpoint_id} is disabled${endpoint.disabled_reason ? ` (${endpoint.disabled_reason})` : ""}; enable it (PATCH {"enabled": true}) first`,
    });
  }
  const sent = await sendTestEvent(c.env, endpoint, requestOrigin(c));
  const d = (await getDelivery(c.env.DB, endpoint.tenant_id, sent.delivery_id))!;
  return reply(c, TestEventSent, { ...sent, status: d.status, status_code: d.last_status_code, error: d.last_error });
});

webhooks.get("/:id/deliveries", requireScope("webhooks:read"), async (c) => {
  const endpoint = await requireEndpoint(c);
  const q = validateQuery(ListQuery, c.req.queries());
  const cursor = q.cursor ? decodeCursor(q.cursor, ["created_at", "delivery_id"]) : null;
  const rows = await listDeliveries(
    c.env.DB,
    endpoint.tenant_id,
    endpoint.endpoint_id,
    q.limit,
    cursor && { created_at: cursor[0]!, delivery_id: cursor[1]! },
  );
  const last = rows.length === q.limit ? rows[rows.length - 1] : undefined;
  return reply(c, DeliveryPage, { deliveries: rows, next_cursor: last ? encodeCursor([last.created_at, last.delivery_id]) : null });
});

/** A delivered or failed delivery starts a fresh schedule now (same event, same webhook-id). */
webhooks.post("/:id/deliveries/:delivery_id/retry", requireScope("webhooks:write"), async (c) => {
  const endpoint = await requireEndpoint(c);
  const deliveryId = c.req.param("delivery_id");
  const delivery = await getDelivery(c.env.DB, endpoint.tenant_id, deliveryId);
  if (!delivery || delivery.endpoint_id !== endpoint.endpoint_id) {
    throw new ApiFailure({ code: "not_found", message: `no delivery ${deliveryId} to endpoint ${endpoint.endpoint_id}` });
  }
  if (!endpoint.enabled) {
    throw new ApiFailure({
      code: "delivery_state",
      message: `endpoint ${endpoint.endpoint_id} is disabled; enable it (PATCH {"enabled": true}) first`,
    });
  }
  if (!(await restartDelivery(c.env.DB, endpoint.tenant_id, deliveryId, new Date().toISOString()))) {
    throw new ApiFailure({ code: "delivery_state", message: `delivery ${deliveryId} is still pending; it is retried on its schedule` });
  }
  await startDelivery(c.env, endpoint.tenant_id, deliveryId);
  return reply(c, RetriedDelivery, { delivery_id: deliveryId, status: "pending" }, 202);
});

async function requireEndpoint(c: Context<AppEnv>): Promise<EndpointRecord> {
  const id = c.req.param("id")!;
  const endpoint = await getEndpoint(c.env.DB, tenantOf(c).tenant_id, id);
  if (!endpoint) throw endpointNotFound(id);
  return endpoint;
}

const endpointNotFound = (id: string) =>
  new ApiFailure({ code: "not_found", message: `no webhook endpoint ${id}; list them with GET /v1/webhook-endpoints` });

function checkUrl(c: Context<AppEnv>, url: string): void {
  const problem = outboundUrlIssue(url, edgeConfig(c.env).outbound, "endpoint");
  if (problem) throw invalidBody([{ path: "url", message: problem }]);
}

async function sealed(c: Context<AppEnv>, tenantId: string, endpointId: string, secret: string) {
  try {
    return await sealSigningSecret(c.env.EDGEVAL_SECRETS_KEK, tenantId, endpointId, secret);
  } catch (err) {
    if (err instanceof KekMissing) {
      throw new ApiFailure({
        code: "not_configured",
        message: "webhook secrets need the EDGEVAL_SECRETS_KEK secret (wrangler secret put EDGEVAL_SECRETS_KEK)",
      });
    }
    throw err;
  }
}

/** The change and its entry in one batch, the entry written only if the change did (a 404 otherwise: deleted meanwhile). */
async function changeAudited(c: Context<AppEnv>, change: D1PreparedStatement, entry: ReturnType<typeof auditEntry>): Promise<void> {
  const [changed] = await c.env.DB.batch([change, auditIfChanged(c.env.DB, entry)]);
  if (!changed?.meta.changes) throw endpointNotFound(entry.target);
}

function auditEntry(c: Context<AppEnv>, action: AuditAction, target: string, detail: Record<string, unknown>) {
  const principal = c.get("principal");
  return { tenant_id: principal.tenant.tenant_id, actor: actorOf(principal), action, target, detail };
}
