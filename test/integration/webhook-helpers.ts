/** The webhook receiver (test/webhook-receiver/server.mjs) and endpoints, for tests inside workerd. */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { exactTemplate, fakeModel } from "./helpers";
import { apiAs } from "./tenant-helpers";

export interface Received {
  webhook_id: string | null;
  timestamp: string | null;
  signature: string | null;
  body: string;
  verified_by: number[];
  status: number;
}

export interface ScriptStep {
  status: number;
  location?: string;
  delay_ms?: number;
}

export const hookUrl = (name: string) => `${env.WEBHOOK_RECEIVER_URL}/hooks/${name}`;

async function receiverAdmin(path: string, method: string, body?: unknown): Promise<Response> {
  const res = await fetch(`${env.WEBHOOK_RECEIVER_URL}/__admin/hooks${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`receiver admin ${method} ${path}: ${res.status}`);
  return res;
}

export const registerHook = (name: string, secrets: string[], script: ScriptStep[] = []) =>
  receiverAdmin("", "POST", { name, secrets, script });
export const updateHook = (name: string, patch: { secrets?: string[]; script?: ScriptStep[] }) => receiverAdmin(`/${name}`, "PUT", patch);
export const receivedBy = async (name: string): Promise<Received[]> =>
  ((await (await receiverAdmin(`/${name}`, "GET")).json()) as { received: Received[] }).received;

/** Polls until `until` holds for what the hook received (or fails after ~10 s). */
export async function waitForReceived(name: string, until: (r: Received[]) => boolean): Promise<Received[]> {
  for (let i = 0; i < 200; i++) {
    const got = await receivedBy(name);
    if (until(got)) return got;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`hook ${name} never received what the test waited for: ${JSON.stringify(await receivedBy(name))}`);
}

export interface CreatedEndpoint {
  endpoint_id: string;
  secret: string;
  name: string;
}

/** Registers a receiver hook and a tenant endpoint pointing at it (the endpoint's secret given to the hook). */
export async function createEndpoint(key: string, body: Record<string, unknown> = {}, script: ScriptStep[] = []): Promise<CreatedEndpoint> {
  const name = `hook-${crypto.randomUUID().slice(0, 8)}`;
  const res = await apiAs(key, "/v1/webhook-endpoints", { method: "POST", json: { url: hookUrl(name), ...body } });
  expect(res.status).toBe(201);
  const created = (await res.json()) as { endpoint_id: string; secret: string };
  await registerHook(name, [created.secret], script);
  return { ...created, name };
}

/** A one-question run answered by a manual model and judged by the fake LLM (`judge` must have a rule). */
export function tinyRun(judge: string, extra: Record<string, unknown> = {}) {
  return {
    benchmark: { name: "hooks", questions: [{ id: "q", question: "?", template: exactTemplate("x") }] },
    config: { answering_models: [{ id: "m", interface: "manual", manual_answers: { q: "x" } }], parsing_models: [fakeModel("j", judge)] },
    ...extra,
  };
}

export async function deliveriesOf(key: string, endpointId: string): Promise<any[]> {
  const res = await apiAs(key, `/v1/webhook-endpoints/${endpointId}/deliveries`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { deliveries: any[] }).deliveries;
}

/** Polls the delivery log until every delivery has left `pending`. */
export async function settledDeliveries(key: string, endpointId: string, count: number): Promise<any[]> {
  for (let i = 0; i < 300; i++) {
    const ds = await deliveriesOf(key, endpointId);
    if (ds.length >= count && ds.every((d) => d.status !== "pending")) return ds;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`deliveries of ${endpointId} did not settle: ${JSON.stringify(await deliveriesOf(key, endpointId))}`);
}
