/**
 * POST /v1/runs/:id/rescore (src/rescore/README.md): a child run of a finished run of the caller's
 * tenant (another tenant's run is a 404, as every run route), with new parsing models, answering
 * models, replicates or traits. The child starts as any run starts (startRun) under the tenant's
 * run quotas; its jobs reuse the parent's answers and results.
 */
import { type Context, Hono } from "hono";
import type { z } from "zod";
import { secretAdvice } from "../env";
import { priceFor, priceTable } from "../llm/prices";
import { planRescore } from "../rescore/plan";
import { type RescoreAfresh, type RescoreLeftOut, RescoreRequest, RescoreStarted } from "../schemas/rescore";
import { countResults } from "../storage/results-repo";
import { countScenarioTurnResults } from "../storage/scenario-results-repo";
import type { RunSpec } from "../storage/run-spec";
import type { RunRecord } from "../storage/runs-repo";
import { requireSpec } from "../storage/spec-store";
import { startRun } from "../submit/submit";
import { actorOf, auditStatement } from "../tenants/audit";
import { loadKeyRing } from "../tenants/key-ring";
import { effectiveLimits } from "../tenants/limits";
import { type AppEnv, requireScope, tenantOf } from "./auth";
import { type BodyLimit, readJson, validate } from "./body";
import { invalidBody } from "./errors";
import { reply } from "./reply";
import { admitRun, spendAllowance } from "./run-quotas";
import { requireEnded, requireRun, statusUrl } from "./runs";
import { httpHost } from "./submit-run";
import { requestOrigin } from "../webhooks/links";

/** New models and traits, not a benchmark. */
const RESCORE_BODY_LIMIT: BodyLimit = {
  bytes: 1_000_000,
  advice: "a re-score adds models, replicates or traits; the questions are the parent run's",
};

export const runRescore = new Hono<AppEnv>();

runRescore.post("/:id/rescore", requireScope("runs:write"), async (c) => {
  const parent = await requireRun(c, c.req.param("id"));
  const body = validate(RescoreRequest, (await readJson(c, RESCORE_BODY_LIMIT)).value);
  const started = await startRescore(c, parent, body);
  c.header("Location", started.status_url);
  return reply(c, RescoreStarted, started, 202);
});

/**
 * Plans, admits and starts `parent`'s child with what `body` adds (the API's POST and the dashboard's
 * Re-score form): a refusal is an ApiFailure (400 naming the field, 409 run_active, 429), nothing written.
 */
export async function startRescore(c: Context<AppEnv>, parent: RunRecord, body: RescoreRequest): Promise<z.output<typeof RescoreStarted>> {
  const tenant = tenantOf(c);
  await requireEnded(c, parent, "re-score it once it has finished");
  const parentSpec = await requireSpec(c.env.BLOBS, parent);
  const runId = crypto.randomUUID();
  const ring = await loadKeyRing(c.env, tenant, [parentSpec, body]);
  const plan = planRescore(parentSpec, body, { run_id: runId, created_at: new Date().toISOString() }, ring, (name) =>
    secretAdvice(name, c.env),
  );
  if (!plan.ok) throw invalidBody(plan.issues);
  // What the 202 says the child does without (scenarios) and does afresh: read before anything is written.
  const recorded = await questionResultsStored(c.env.DB, parent, parentSpec);
  const leftOut = scenariosLeftOut(plan.leftOutScenarios, recorded.turns);
  const afresh = gradedAfresh(parentSpec, recorded, runId);
  const limits = effectiveLimits(tenant.limits_json);
  if (plan.jobIds.length > limits.jobs_per_run) {
    throw invalidBody([
      {
        path: "(body)",
        message: `the re-scored run plans ${plan.jobIds.length} jobs (questions × answering models × replicates); this tenant may run at most ${limits.jobs_per_run} per run`,
      },
    ]);
  }
  // Under a spend quota the child's budget is what is left of the month, as for any run (run-quotas.ts).
  const allowance = await spendAllowance(c.env.DB, tenant.tenant_id, limits);
  // The child keeps what the 202 says it does without (GET /v1/runs/:id and its dashboard page show it).
  const caveats = { left_out: leftOut, graded_afresh: afresh };
  const planned = plan.spec.rescore ? { ...plan.spec, rescore: { ...plan.spec.rescore, caveats } } : plan.spec;
  const spec = allowance && allowance.left > 0 ? { ...planned, budget_usd: allowance.left } : planned;
  if (spec.budget_usd !== undefined) refuseUnpriced(spec);
  await admitRun(httpHost(c), tenant.tenant_id, limits, allowance);
  // The entry goes with the child's row: apart, a failed insert answered 500 for a child that had started, and the retry started another.
  const audit = auditStatement(c.env.DB, {
    tenant_id: tenant.tenant_id,
    actor: actorOf(c.get("principal")),
    action: "run.rescored",
    target: runId,
    detail: { parent_run_id: parent.run_id, jobs: plan.jobIds.length, new_traits: plan.newTraits },
  });
  await startRun(c.env, spec, plan.jobIds, { api_origin: requestOrigin(c), withRow: [audit] });
  // No warnings: the child grades with its parent's config, whose settings were reported at its submit.
  return { run_id: runId, status_url: statusUrl(runId), warnings: [], ...caveats };
}

/** How many of a run's question results it recorded and planned, and its scenario turns' results. */
export async function questionResultsStored(
  db: D1Database,
  run: { tenant_id: string; run_id: string },
  spec: Pick<RunSpec, "questions" | "answering_models" | "parsing_models" | "replicate_count" | "scenarios">,
): Promise<{ stored: number; expected: number; turns: number }> {
  const turns = spec.scenarios?.length ? await countScenarioTurnResults(db, run) : 0;
  const expected = spec.questions.length * spec.answering_models.length * spec.parsing_models.length * spec.replicate_count;
  return { stored: (await countResults(db, run)).total - turns, expected, turns };
}

/**
 * The parent's (question, answering, parsing, replicate) tuples without a stored result: the child's
 * jobs find nothing to reuse there and answer and grade them as a fresh run would (null: none).
 */
function gradedAfresh(
  parent: Pick<RunSpec, "run_id">,
  { stored, expected }: { stored: number; expected: number },
  childId: string,
): RescoreAfresh | null {
  const missing = expected - stored;
  if (missing <= 0) return null;
  return {
    results: missing,
    reason: `run ${parent.run_id} recorded ${stored} of its ${expected} results (it was cancelled, ran out of budget, or lost jobs): the child answers and grades the ${missing} missing ones afresh, with answering calls and every judge, as a new run would. If you meant to re-grade only the answers it has, cancel the child (POST /v1/runs/${childId}/cancel).`,
  };
}

/** The parent's scenarios the child does not run, with the turn results it does not copy (none: []). */
function scenariosLeftOut(names: string[], results: number): RescoreLeftOut[] {
  if (!names.length) return [];
  return [
    {
      what: "scenarios",
      ids: names,
      results,
      reason: `a re-score grades the run's questions only: each scenario turn's question depends on the answers before it, so new judges, models or traits on a scenario mean running its chain again. To grade the ${names.length === 1 ? "scenario" : `${names.length} scenarios`} with them, submit the benchmark again (POST /v1/runs) with the models you want.`,
    },
  ];
}

/** A budget binds only if every called model has a price (as planRun refuses for POST /v1/runs). */
function refuseUnpriced(spec: {
  prices?: Parameters<typeof priceTable>[0];
  answering_models: { interface: string; model_name: string }[];
  parsing_models: { interface: string; model_name: string }[];
}) {
  const table = priceTable(spec.prices);
  const unpriced = [...spec.answering_models, ...spec.parsing_models].filter(
    (m) => m.interface !== "manual" && !priceFor(table, m.interface as never, m.model_name),
  );
  if (unpriced.length) {
    throw invalidBody(
      unpriced.map((m) => ({
        path: "(body)",
        message: `this tenant's monthly spend quota binds the run as a budget, which needs a price for model ${JSON.stringify(`${m.interface}:${m.model_name}`)}; the parent run's prices have none`,
      })),
    );
  }
}
