/**
 * Scenario 7: `POST /v1/runs` with one Idempotency-Key five times at once: one run, five identical
 * responses (status, body, Location), and that run then completes with every invariant.
 */
import { env } from "cloudflare:workers";
import { api, waitForRun } from "../integration/helpers";
import { checkRun } from "./invariants";
import type { InvariantOutcome } from "./report";
import { workload } from "./scenario";

export async function idempotencyScenario(copies: number, jobs: number) {
  // A benchmark name of its own: the runs it started are counted by it.
  const name = `s7-${crypto.randomUUID().slice(0, 8)}`;
  const w = await workload(name, { questions: jobs, replicates: 1, judges: 1 });
  const key = `s7-${crypto.randomUUID()}`;
  const responses = await Promise.all(
    Array.from({ length: copies }, () => api("/v1/runs", { method: "POST", json: w.body, headers: { "idempotency-key": key } })),
  );
  const seen = await Promise.all(
    responses.map(async (r) => JSON.stringify({ status: r.status, location: r.headers.get("location"), body: await r.text() })),
  );
  const distinct = [...new Set(seen)];
  const runIds = [...new Set(seen.map((s) => (JSON.parse(JSON.parse(s).body) as { run_id?: string }).run_id))].filter(
    (id): id is string => !!id,
  );
  // Runs started with this benchmark: one, whatever the responses say.
  const created = (await env.DB.prepare("SELECT COUNT(*) AS n FROM runs WHERE tenant_id = 'default' AND benchmark_name = ?")
    .bind(name)
    .first<{ n: number }>())!.n;
  const extra: Record<string, InvariantOutcome> = {
    identical_responses: {
      pass: distinct.length === 1,
      detail: `${distinct.length} distinct of ${copies}: ${distinct.map((d) => d.slice(0, 160)).join(" | ")}`,
    },
    one_run: { pass: runIds.length === 1 && created === 1, detail: `${runIds.length} run ids answered, ${created} runs stored` },
  };
  const runId = runIds[0]!;
  await waitForRun(runId, ["completed", "partial", "failed"], 120_000);
  const check = await checkRun({ runId, keys: w.keys, calls: { models: [w.answerer, ...w.judges], baseline: w.baselineCalls } });
  return {
    check,
    extra,
    faults: copies - 1,
    size: `${copies} POSTs, ${jobs} jobs`,
    figures: { runs_answered: runIds.length, runs_stored: created },
  };
}
