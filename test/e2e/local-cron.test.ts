// A schedule made on a local stack starts its runs: the stack fires wrangler.toml's crons itself
// (scripts/lib/local-cron.mjs), which no local workerd or wrangler dev does. Waits for a real
// minute boundary, so this takes up to a minute or two.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { startLocalStack } from "../../scripts/lib/local-stack.mjs";

type Stack = { url: string; token: string; fake: { url: string }; stop: () => Promise<void> };

describe("a local stack's Cron Triggers", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startLocalStack({ fake: { latencyMs: 10 } });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it("start an every-minute schedule's run, which completes", async () => {
    const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${stack.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${stack.token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(res.ok, `${method} ${path}: ${res.status}`).toBe(true);
      return (await res.json()) as T;
    };
    const template = {
      fields: [{ name: "ok", type: "bool", description: "ok", ground_truth: true, verify_with: { type: "BooleanMatch" } }],
    };
    const { benchmark_id } = await call<{ benchmark_id: string }>("POST", "/v1/benchmarks", {
      name: "cron",
      questions: [{ id: "q1", question: "2 + 2?", template }],
    });
    const model = (id: string) => ({ id, interface: "openai_compatible", model_name: "cron-model", base_url: `${stack.fake.url}/v1` });
    const { schedule_id } = await call<{ schedule_id: string }>("POST", "/v1/schedules", {
      name: "every minute",
      cron: "* * * * *",
      benchmark_id,
      config: { answering_models: [model("a")], parsing_models: [model("p")] },
    });
    let runId: string | undefined;
    let status: string | undefined;
    for (const t0 = Date.now(); Date.now() - t0 < 150_000 && status !== "completed"; await new Promise((r) => setTimeout(r, 1000))) {
      const schedule = await call<{ recent_runs: { run_id: string | null }[] }>("GET", `/v1/schedules/${schedule_id}`);
      runId ??= schedule.recent_runs.find((r) => r.run_id)?.run_id ?? undefined;
      if (runId) status = (await call<{ status: string }>("GET", `/v1/runs/${runId}`)).status;
    }
    expect(runId, "no scheduled run started within 150 s").toBeDefined();
    expect(status).toBe("completed");
  }, 180_000);
});
