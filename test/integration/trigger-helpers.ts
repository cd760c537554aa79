/** Triggers and signed deliveries for tests inside workerd (src/triggers/README.md). */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import worker from "../../src/index";
import { apiAs } from "./tenant-helpers";

export interface CreatedTrigger {
  trigger_id: string;
  secret: string;
}

export async function createTrigger(key: string, body: Record<string, unknown>): Promise<CreatedTrigger> {
  const res = await apiAs(key, "/v1/triggers", { method: "POST", json: body });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as CreatedTrigger;
}

/** Queue sends made through the worker's env during one delivery (forwarded to the real queue). */
export interface Counted {
  res: Response;
  queueSends: number;
}

/** POSTs a delivery to /v1/hooks/:id (with `query`, if any) straight into the worker with a JOBS binding that counts sends. */
export async function deliver(triggerId: string, body: string, headers: Record<string, string>, query = ""): Promise<Counted> {
  let queueSends = 0;
  const jobs = env.JOBS;
  const counting = {
    send: (m: unknown, o?: QueueSendOptions) => ((queueSends += 1), jobs.send(m, o)),
    sendBatch: (m: Iterable<MessageSendRequest<unknown>>, o?: QueueSendBatchOptions) => ((queueSends += 1), jobs.sendBatch(m, o)),
  } as unknown as Queue<unknown>;
  const ctx = createExecutionContext();
  const req = new Request(`http://edgeval.test/v1/hooks/${triggerId}${query ? `?${query}` : ""}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  const res = await worker.fetch!(req as Request<unknown, IncomingRequestCfProperties>, { ...env, JOBS: counting }, ctx);
  await waitOnExecutionContext(ctx);
  return { res, queueSends };
}

/** Rows of one tenant in every D1 table that has a tenant_id column. */
export async function tenantRows(tenantId: string): Promise<Record<string, number>> {
  const { results: tables } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' AND name != 'd1_migrations'",
  ).all<{ name: string }>();
  const out: Record<string, number> = {};
  for (const { name } of tables) {
    const { results: cols } = await env.DB.prepare(`PRAGMA table_info(${name})`).all<{ name: string }>();
    if (!cols.some((c) => c.name === "tenant_id")) continue;
    out[name] = (await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${name} WHERE tenant_id = ?`).bind(tenantId).first<{ n: number }>())!.n;
  }
  return out;
}
