/**
 * Issue 17 × issue 16: webhook URLs pass the outbound URL policy (src/outbound) when registered and
 * again before every attempt. Production mode refuses every SSRF corpus entry (test/fixtures/
 * ssrf-corpus.ts) as an endpoint URL, and an attempt to an endpoint the policy refuses sends
 * nothing: the loopback canary counts no request. In local mode the same loopback URL is accepted
 * and reached, so these tests can fail.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { buildApp } from "../../src/http/app";
import { attemptDelivery } from "../../src/webhooks/attempt";
import { insertDeliveryStatement, insertEventStatement } from "../../src/webhooks/deliveries-repo";
import { ssrfCorpus } from "../fixtures/ssrf-corpus";
import { createTenant } from "./tenant-helpers";
import { deliveriesOf } from "./webhook-helpers";

const PORT = env.CANARY_PORT;
const CANARY = `http://127.0.0.1:${PORT}`;
const hits = async (prefix: string): Promise<number> =>
  ((await (await fetch(`${CANARY}/_canary/hits?prefix=${encodeURIComponent(prefix)}`)).json()) as { hits: number }).hits;
const tag = () => `/wh-${crypto.randomUUID().slice(0, 8)}`;

/** The test bindings without EDGEVAL_ENV: production mode. */
function production(): Env {
  const { EDGEVAL_ENV: _local, ...rest } = env as unknown as Record<string, unknown>;
  return rest as unknown as Env;
}

async function register(bindings: Env, key: string, url: string) {
  const req = new Request("http://edgeval.test/v1/webhook-endpoints", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ url }),
  });
  const res = await buildApp().fetch(req, bindings);
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as any };
}

/** A pending delivery of one event to `endpointId`, written without starting its dispatcher. */
async function pendingDelivery(tenantId: string, endpointId: string): Promise<string> {
  const id = crypto.randomUUID();
  const at = new Date().toISOString();
  const delivery = { tenant_id: tenantId, delivery_id: `dlv_${id}`, event_id: `msg_${id}`, endpoint_id: endpointId, at };
  await env.DB.batch([
    insertEventStatement(env.DB, {
      tenant_id: tenantId,
      event_id: `msg_${id}`,
      run_id: id,
      type: "run.completed",
      payload: "{}",
      created_at: at,
    }),
    insertDeliveryStatement(env.DB, delivery),
  ]);
  return delivery.delivery_id;
}

describe("webhook URLs and the outbound URL policy", () => {
  it("production: every SSRF corpus URL (and its https form) as an endpoint url is a 400 at url; none is stored", async () => {
    const own = await createTenant({ name: "webhook ssrf" });
    // A query is a webhook URL's own (the policy's "endpoint" use): only the base-URL rule refuses it.
    const corpus = ssrfCorpus(PORT, tag()).filter((e) => e.what !== "query on a public host");
    const urls = corpus.flatMap((e) => [
      e,
      ...(e.url.startsWith("http:") && !e.schemeOnly ? [{ ...e, url: e.url.replace(/^http:/, "https:"), what: `${e.what} (https)` }] : []),
    ]);
    expect(urls.length).toBeGreaterThan(80);
    for (const { url, what } of urls) {
      const { status, body, text } = await register(production(), own.key, url);
      expect(status, `${what}: ${url} → ${text}`).toBe(400);
      expect(
        body.error.issues.map((i: { path: string }) => i.path),
        what,
      ).toEqual(["url"]);
    }
    const stored = await env.DB.prepare("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE tenant_id = ?")
      .bind(own.tenant_id)
      .first<{ n: number }>();
    expect(stored!.n).toBe(0);
    // A public https URL with a query of its own is accepted.
    expect((await register(production(), own.key, "https://hooks.example.com/edgeval?token=abc")).status).toBe(201);
  });

  it("an endpoint registered in local mode on loopback: production refuses the attempt before sending; local mode reaches the canary", async () => {
    const own = await createTenant({ name: "webhook ssrf attempt" });
    const T = tag();
    const local = await register(env, own.key, `${CANARY}${T}/hook`);
    expect(local.status).toBe(201);
    const endpointId = local.body.endpoint_id as string;

    const refused = await pendingDelivery(own.tenant_id, endpointId);
    await attemptDelivery(production(), own.tenant_id, refused);
    expect(await hits(T)).toBe(0);
    const [d] = (await deliveriesOf(own.key, endpointId)).filter((x) => x.delivery_id === refused);
    expect(d.attempt_log).toEqual([expect.objectContaining({ status_code: null, error: expect.stringContaining("loopback") })]);

    // The same attempt in local mode (loopback allowed) reaches the canary: the count above can fail.
    const allowed = await pendingDelivery(own.tenant_id, endpointId);
    await attemptDelivery(env, own.tenant_id, allowed);
    expect(await hits(T)).toBe(1);
  });

  it("an attempt that reaches no receiver says which origin it tried and what to check, not the runtime's bare text", async () => {
    const own = await createTenant({ name: "webhook unreachable" });
    // Port 9 (discard) has no listener here: the connection is refused.
    const ep = await register(env, own.key, "http://127.0.0.1:9/hook");
    expect(ep.status).toBe(201);
    const id = await pendingDelivery(own.tenant_id, ep.body.endpoint_id);
    await attemptDelivery(env, own.tenant_id, id);
    const [d] = (await deliveriesOf(own.key, ep.body.endpoint_id)).filter((x) => x.delivery_id === id);
    expect(d.attempt_log).toEqual([
      expect.objectContaining({
        status_code: null,
        error: expect.stringMatching(/^could not reach http:\/\/127\.0\.0\.1:9 \(.+\): check the URL's host and port/),
      }),
    ]);
  });
});
