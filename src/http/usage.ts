/** /v1/usage: the tenant's calls, tokens and cost per model in one UTC month (scope runs:read); the operator sees any tenant's through /v1/admin. */
import { Hono } from "hono";
import type { z } from "zod";
import type { TenantRecord } from "../tenants/tenants-repo";
import { UsageQuery } from "../schemas/tenants";
import { effectiveLimits } from "../tenants/limits";
import { monthOf, monthUsage } from "../tenants/usage";
import { type AppEnv, requireScope, tenantOf } from "./auth";
import { validateQuery } from "./body";
import { reply } from "./reply";
import { MonthUsage } from "../schemas/tenant-views";

export const usage = new Hono<AppEnv>();

usage.get("/", requireScope("runs:read"), async (c) => {
  const q = validateQuery(UsageQuery, c.req.queries());
  return reply(c, MonthUsage, await monthUsageView(c.env.DB, tenantOf(c), q.month ?? monthOf(Date.now())));
});

/** A tenant's month as GET /v1/usage answers it; the operator's GET /v1/admin/tenants/:id/usage too. */
export async function monthUsageView(db: D1Database, tenant: TenantRecord, month: string): Promise<z.input<typeof MonthUsage>> {
  const models = await monthUsage(db, tenant.tenant_id, month);
  const total = models.reduce(
    (t, m) => ({
      calls: t.calls + m.calls,
      cached_calls: t.cached_calls + m.cached_calls,
      input_tokens: t.input_tokens + m.input_tokens,
      output_tokens: t.output_tokens + m.output_tokens,
      cost_usd: t.cost_usd + m.cost_usd,
      unpriced_calls: t.unpriced_calls + m.unpriced_calls,
    }),
    // cost_usd sums the priced calls only: without unpriced_calls beside it, a month of unpriced
    // models would read as free.
    { calls: 0, cached_calls: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0, unpriced_calls: 0 },
  );
  return { month, models, total, monthly_spend_usd: effectiveLimits(tenant.limits_json).monthly_spend_usd };
}
