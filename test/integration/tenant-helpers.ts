/** Tenants and keys for tests inside workerd: created through the admin and key routes. */
import { api } from "./helpers";

export const ADMIN_TOKEN = "test-admin-token";

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export function apiAs(key: string, path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  return api(path, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), ...bearer(key) } });
}

export interface TestTenant {
  tenant_id: string;
  /** An all-scope key. */
  key: string;
  key_id: string;
}

export async function createTenant(body: Record<string, unknown> = {}): Promise<TestTenant> {
  const res = await apiAs(ADMIN_TOKEN, "/v1/admin/tenants", { method: "POST", json: { name: "test tenant", ...body } });
  if (res.status !== 201) throw new Error(`tenant creation failed: ${res.status} ${await res.text()}`);
  const out = (await res.json()) as { tenant: { tenant_id: string }; key: { key: string; key_id: string } };
  return { tenant_id: out.tenant.tenant_id, key: out.key.key, key_id: out.key.key_id };
}

export async function createKey(adminKey: string, body: { name?: string; scopes: string[]; expires_at?: string }) {
  const res = await apiAs(adminKey, "/v1/keys", { method: "POST", json: { name: "k", ...body } });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { key: string; key_id: string; scopes: string[] };
}

/** Submits a run with `key`; throws unless it is accepted (202). */
export async function submitAs(key: string, body: unknown, headers: Record<string, string> = {}): Promise<string> {
  const res = await apiAs(key, "/v1/runs", { method: "POST", json: body, headers });
  if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { run_id: string }).run_id;
}

const FINISHED = ["completed", "partial", "failed", "cancelled", "budget_exceeded"];

/** Polls the run with `key` until it has finished; returns its view. */
export async function waitAs(key: string, runId: string): Promise<any> {
  for (let i = 0; i < 500; i++) {
    const view = (await (await apiAs(key, `/v1/runs/${runId}`)).json()) as { status: string };
    if (FINISHED.includes(view.status)) return view;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`run ${runId} did not finish`);
}

/** Submits with `key` and waits for the run to finish. */
export async function runAs(key: string, body: unknown, headers: Record<string, string> = {}): Promise<any> {
  return waitAs(key, await submitAs(key, body, headers));
}
