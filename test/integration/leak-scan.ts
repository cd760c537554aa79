/** Where a secret must not be: every row of D1 and every object of R2, and the forms a secret may take there. */
import { createExecutionContext, createMessageBatch, getQueueResult, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import type { CreateRunBody } from "../../src/schemas/api";
import { planRun } from "../../src/submit/plan";
import { startRun } from "../../src/submit/submit";
import { loadKeyRing } from "../../src/tenants/key-ring";
import { getTenant } from "../../src/tenants/tenants-repo";

const hex = (s: string) => [...new TextEncoder().encode(s)].map((b) => b.toString(16).padStart(2, "0")).join("");
export const forms = (s: string) => [s, btoa(s), btoa(s).replace(/=+$/, ""), hex(s)];

/** Every row of every table of D1, as text. */
export async function d1Dump(): Promise<string> {
  const { results: tables } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%'",
  ).all<{ name: string }>();
  const out: string[] = [];
  for (const { name } of tables) out.push(JSON.stringify((await env.DB.prepare(`SELECT * FROM "${name}"`).all()).results));
  return out.join("\n");
}

/** Every object of R2: key, metadata and body. */
export async function r2Dump(): Promise<string> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.BLOBS.list({ cursor, include: ["customMetadata", "httpMetadata"] });
    for (const o of page.objects) {
      const obj = await env.BLOBS.get(o.key);
      out.push(o.key, JSON.stringify(o.customMetadata ?? {}), obj ? await obj.text() : "");
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return out.join("\n");
}

/** Every row of every table of a run's coordinator Durable Object, as text. */
export function coordinatorDump(name: string): Promise<string> {
  return runInDurableObject(env.RUNS.getByName(name), async (_i, state) => {
    const names = state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'")
      .toArray();
    return names.map(({ name }) => JSON.stringify(state.storage.sql.exec(`SELECT * FROM "${name}"`).toArray())).join("\n");
  });
}

/**
 * A run of tenant `tenantId` submitted as the route does, with its job messages captured (so they
 * can be swept too), delivered as one queue batch (after `beforeDelivery`); a job the consumer sends back is captured, not delivered.
 */
export async function runQueuedAs(tenantId: string, body: CreateRunBody, opts: { beforeDelivery?: () => Promise<void> } = {}) {
  const tenant = (await getTenant(env.DB, tenantId))!;
  const plan = planRun(
    body,
    { run_id: crypto.randomUUID(), tenant_id: tenantId, created_at: new Date().toISOString() },
    await loadKeyRing(env, tenant, body),
  );
  if (!plan.ok) throw new Error(JSON.stringify(plan.issues));
  const sent: { body: unknown }[] = [];
  // The consumer's own sends (a job deferred to wait out a retry-after) are captured too.
  const jobs = {
    sendBatch: async (m: { body: unknown }[]) => void sent.push(...m),
    send: async (body: unknown) => void sent.push({ body }),
  } as unknown as Queue<unknown>;
  await startRun({ ...env, JOBS: jobs }, plan.spec, plan.jobIds);
  await opts.beforeDelivery?.();
  const batch = createMessageBatch(
    "edgeval-jobs",
    sent.map((m, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body: m.body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, { ...env, JOBS: jobs });
  return { spec: plan.spec, sent, outcome: await getQueueResult(batch, ctx) };
}
