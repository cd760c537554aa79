/** GET /v1/usage and the monthly spend quota (issue 14 item 4), from the per-tenant usage ledger. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { insertLedgerRows, monthOf } from "../../src/tenants/usage";
import { addFakeRules, exactTemplate, fakeModel, uniqueModel } from "./helpers";
import { apiAs, createTenant, runAs, type TestTenant } from "./tenant-helpers";

const price = (usd: number) => ({ input_per_mtok: usd * 1_000_000, output_per_mtok: usd * 1_000_000 });

const runAndWait = (t: TestTenant, body: unknown) => runAs(t.key, body);

function spec(ans: string, judge: string, replicates: number, prices?: Record<string, unknown>) {
  return {
    benchmark: { name: "usage", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
    config: { answering_models: [fakeModel("ans", ans)], parsing_models: [fakeModel("j", judge)], replicate_count: replicates },
    ...(prices ? { prices } : {}),
  };
}

describe("GET /v1/usage", () => {
  it("reports calls, tokens and cost per model for the month, counts each result once, and only the tenant's own", async () => {
    const t = await createTenant();
    const ans = uniqueModel("usage-ans");
    const judge = uniqueModel("usage-judge");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "Paris" } } }]);
    const view = await runAndWait(t, spec(ans, judge, 3, { [ans]: price(0.001), [judge]: price(0.002) }));
    expect(view.status).toBe("completed");

    const usage = (await (await apiAs(t.key, "/v1/usage")).json()) as any;
    expect(usage.month).toBe(monthOf(Date.now()));
    const byModel = Object.fromEntries(usage.models.map((m: any) => [m.model, m]));
    expect(Object.keys(byModel).sort()).toEqual([`openai_compatible:${ans}`, `openai_compatible:${judge}`].sort());
    expect(byModel[`openai_compatible:${ans}`]).toMatchObject({ calls: 3, cached_calls: 0, unpriced_calls: 0 });
    expect(byModel[`openai_compatible:${judge}`]).toMatchObject({ calls: 3 });
    // The ledger agrees with the run's own accounting.
    expect(usage.total.input_tokens + usage.total.output_tokens).toBe(view.usage.total.total_tokens);
    expect(usage.total.cost_usd).toBeCloseTo(view.usage.total.cost_usd, 9);
    expect(usage.total.cost_usd).toBeGreaterThan(0);

    // A redelivered result writes the same ledger rows again: nothing is counted twice.
    const { results } = await env.DB.prepare("SELECT * FROM usage_ledger WHERE tenant_id = ?").bind(t.tenant_id).all<any>();
    await insertLedgerRows(
      env.DB,
      results.map((r) => ({ ...r, cached: r.cached === 1 })),
    );
    expect(((await (await apiAs(t.key, "/v1/usage")).json()) as any).total).toEqual(usage.total);

    // Another month, and another tenant, see none of it.
    expect(((await (await apiAs(t.key, "/v1/usage?month=2020-01")).json()) as any).models).toEqual([]);
    const other = await createTenant();
    expect(((await (await apiAs(other.key, "/v1/usage")).json()) as any).models).toEqual([]);
    expect((await apiAs(t.key, "/v1/usage?month=2020-13")).status).toBe(400);
  });
});

describe("GET /v1/usage of unpriced models", () => {
  it("says in the total, too, how many calls have no price: their cost is unknown, not part of cost_usd", async () => {
    const t = await createTenant();
    const [ans, judge] = [uniqueModel("unpriced-ans"), uniqueModel("unpriced-judge")];
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "Paris" } } }]);
    const priced = await runAndWait(t, spec(ans, judge, 2, { [ans]: price(0.001) }));
    expect(priced.status).toBe("completed");
    const usage = (await (await apiAs(t.key, "/v1/usage")).json()) as any;
    const byModel = Object.fromEntries(usage.models.map((m: any) => [m.model, m]));
    expect(byModel[`openai_compatible:${ans}`]).toMatchObject({ calls: 2, unpriced_calls: 0 });
    expect(byModel[`openai_compatible:${judge}`]).toMatchObject({ calls: 2, unpriced_calls: 2, cost_usd: 0 });
    expect(usage.total).toMatchObject({ calls: 4, unpriced_calls: 2, cost_usd: byModel[`openai_compatible:${ans}`].cost_usd });
  });
});

describe("monthly spend quota", () => {
  it("says that the quota, not a budget_usd the caller never sent, needs the prices", async () => {
    const t = await createTenant({ limits: { monthly_spend_usd: 0.05 } });
    const res = await apiAs(t.key, "/v1/runs", { method: "POST", json: spec(uniqueModel("quota-ans"), uniqueModel("quota-judge"), 1) });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { issues: { path: string; message: string }[] } };
    expect(error.issues.length).toBeGreaterThan(0);
    for (const issue of error.issues) {
      expect(issue.message).toContain("this tenant's monthly spend quota (limits.monthly_spend_usd, 0.05 USD) caps the run as a budget");
      expect(issue.message).toContain("add it to prices");
    }
  });

  it("needs priced models, ends a run that reaches it budget_exceeded, then refuses new runs with 429 until next month", async () => {
    const t = await createTenant({ limits: { monthly_spend_usd: 0.05 } });
    const ans = uniqueModel("spend-ans");
    const judge = uniqueModel("spend-judge");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "Paris" } } }]);

    const unpriced = await apiAs(t.key, "/v1/runs", { method: "POST", json: spec(ans, judge, 1) });
    expect(unpriced.status).toBe(400);

    // $1 per 1,000 tokens: the first job's calls already cost more than the $0.05 quota.
    const view = await runAndWait(t, spec(ans, judge, 5, { [ans]: price(0.001), [judge]: price(0.001) }));
    expect(view.status).toBe("budget_exceeded");
    expect(view.usage.total.cost_usd).toBeGreaterThanOrEqual(0.05);

    const refused = await apiAs(t.key, "/v1/runs", {
      method: "POST",
      json: spec(ans, judge, 1, { [ans]: price(0.001), [judge]: price(0.001) }),
    });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as any).error.code).toBe("quota_exceeded");
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(31 * 86_400);
    expect(refused.headers.get("RateLimit-Policy")).toContain('"monthly_spend_usd";q=0.05');
  });
});
