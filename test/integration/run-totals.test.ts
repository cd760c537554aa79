/**
 * The coordinator's running totals (src/coordinator/run-totals.ts) against the GROUP BYs over its
 * rows they replace: the same counts, token sums, costs (to the last bit) and trait aggregates,
 * however the reads fall between records, each result once however often it is recorded, an
 * object from before the totals folded from all its rows, and nothing left after a purge.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { UsageRow } from "../../src/coordinator/cost";
import { pairTraits } from "../../src/coordinator/progress";
import type { RecordedResult } from "../../src/coordinator/rpc-types";
import { RunTotals } from "../../src/coordinator/run-totals";
import { aggregateTraits } from "../../src/rubric/aggregate";

const ANSWERING = ["a1", "a2"];
const PARSING = ["p1", "p2"];
const VERDICTS = ["pass", "fail", "no_verdict", "error"] as const;

/** A seeded generator: the same results on every run of the test. */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

/** One job per (question, answering model), a result per parsing model, with usage rows and traits. */
function results(questions: number): RecordedResult[] {
  const rnd = random(7);
  // One parsing model version has no price: its groups' costs are null, the others' sums.
  const cost = (model: string) => (model === "m:p2-v2" ? null : rnd() * 1e-3);
  const out: RecordedResult[] = [];
  for (let q = 0; q < questions; q++) {
    for (const a of ANSWERING) {
      const job_id = `${q}.${a}`;
      for (const p of PARSING) {
        const result_id = `${job_id}.${p}`;
        const judgeModel = rnd() < 0.5 ? `m:${p}` : `m:${p}-v2`;
        const usage: UsageRow[] = [
          // The answer's row is the job's: both parsing models' results carry it, it counts once.
          {
            key: `${job_id}|answer_generation`,
            job_id,
            answering_id: a,
            parsing_id: "",
            stage: "answer_generation",
            model: `m:${a}`,
            input_tokens: 10 + q,
            output_tokens: 20,
            cost_usd: cost(`m:${a}`),
          },
          {
            key: `${result_id}|parsing`,
            job_id,
            answering_id: a,
            parsing_id: p,
            stage: "parsing",
            model: judgeModel,
            input_tokens: 30,
            output_tokens: q % 7,
            cost_usd: cost(judgeModel),
          },
        ];
        const errored = rnd() < 0.15;
        out.push({
          result_id,
          job_id,
          answering_id: a,
          parsing_id: p,
          verdict: VERDICTS[Math.floor(rnd() * VERDICTS.length)]!,
          usage,
          traits: [
            { trait: "clarity", score: errored ? null : Math.floor(rnd() * 5) + rnd(), pass: null, errored },
            { trait: "safe", score: null, pass: errored ? null : rnd() < 0.7, errored },
          ],
        });
      }
    }
  }
  return out;
}

/** What the coordinator read before the totals: GROUP BYs over every row. */
function grouped(sql: SqlStorage) {
  return {
    verdicts: sql
      .exec("SELECT answering_id, parsing_id, verdict, COUNT(*) AS n FROM results GROUP BY answering_id, parsing_id, verdict")
      .toArray(),
    usage: sql
      .exec(
        `SELECT answering_id, parsing_id, stage, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
           CASE WHEN COUNT(cost_usd) < COUNT(*) THEN NULL ELSE SUM(cost_usd) END AS cost_usd
         FROM usage_rows GROUP BY answering_id, parsing_id, stage`,
      )
      .toArray(),
    unpriced: sql.exec("SELECT DISTINCT answering_id, parsing_id, stage, model FROM usage_rows WHERE cost_usd IS NULL").toArray(),
    reported: sql.exec("SELECT DISTINCT answering_id, parsing_id, stage, model FROM usage_rows").toArray(),
    traits: Object.fromEntries(
      ANSWERING.flatMap((a) =>
        PARSING.map((p) => {
          const rows = sql
            .exec<{ trait: string; score: number | null; pass: number | null; errored: number }>(
              "SELECT trait, score, pass, errored FROM trait_rows WHERE answering_id = ? AND parsing_id = ?",
              a,
              p,
            )
            .toArray();
          const observations = rows.map((r) => ({
            trait: r.trait,
            score: r.score,
            pass: r.pass === null ? null : r.pass === 1,
            errored: r.errored === 1,
          }));
          return [`${a}/${p}`, aggregateTraits(observations)];
        }),
      ),
    ),
  };
}

function fromTotals(totals: RunTotals) {
  const { verdicts, usage, unpriced, reported, traits } = totals.read({ reported: true });
  return {
    verdicts,
    usage,
    unpriced,
    reported,
    traits: Object.fromEntries(ANSWERING.flatMap((a) => PARSING.map((p) => [`${a}/${p}`, pairTraits(traits, a, p)]))),
  };
}

const key = (r: Record<string, unknown>) =>
  JSON.stringify(Object.entries(r).filter(([k]) => k !== "n" && !k.endsWith("tokens") && k !== "cost_usd"));
const sorted = <T extends Record<string, unknown>>(rows: T[]) => [...rows].sort((x, y) => key(x).localeCompare(key(y)));
const comparable = (v: ReturnType<typeof grouped>) => ({
  ...v,
  verdicts: sorted(v.verdicts),
  usage: sorted(v.usage),
  unpriced: sorted(v.unpriced),
  reported: sorted(v.reported),
});

async function freshRun(name: string, jobs: string[]) {
  const stub = env.RUNS.getByName(`${name}-${crypto.randomUUID()}`);
  await stub.init({
    run_id: "r",
    job_ids: jobs,
    answering_ids: ANSWERING,
    parsing_ids: PARSING,
    results_per_pair: jobs.length / ANSWERING.length,
  });
  return stub;
}

const totalsOf = (state: DurableObjectState) => new RunTotals(state.storage.sql, (fn) => state.storage.transactionSync(fn));
const record = (results: RecordedResult[]) => results.map((result) => ({ op: "record" as const, result, completesJob: false }));

describe("the coordinator's running totals", () => {
  it("equal the GROUP BYs over its rows, costs to the last bit, read between records and with every result recorded twice", async () => {
    const all = results(150);
    const stub = await freshRun("totals", [...new Set(all.map((r) => r.job_id))]);
    // Read after every batch: each read folds in only the rows since the one before.
    for (let i = 0; i < all.length; i += 50) {
      await stub.applyBatch(record(all.slice(i, i + 50)));
      expect((await stub.snapshot())!.progress.done).toBe(Math.min(all.length, i + 50));
    }
    // A repeat stores nothing, so counts nothing.
    await stub.applyBatch(record(all.slice(0, 100)));
    await runInDurableObject(stub, async (_o, state) => {
      const want = comparable(grouped(state.storage.sql));
      expect(want.verdicts.reduce((n, r) => n + Number(r.n), 0)).toBe(all.length);
      expect(want.usage.some((u) => u.cost_usd !== null)).toBe(true);
      expect(want.unpriced.length).toBeGreaterThan(0);
      expect(comparable(fromTotals(totalsOf(state)))).toEqual(want);
    });
    const snap = (await stub.snapshot())!;
    expect(snap.progress).toEqual({ total: all.length, done: all.length });
    expect(snap.summary.map((s) => s.passed + s.failed + s.errored).reduce((a, n) => a + n, 0)).toBe(
      all.filter((r) => r.verdict !== "no_verdict").length,
    );
  });

  it("of an object from before them are folded from all its rows on the first read, then kept up", async () => {
    const all = results(20);
    const stub = await freshRun("older", [...new Set(all.map((r) => r.job_id))]);
    await stub.applyBatch(record(all.slice(0, 40)));
    await runInDurableObject(stub, async (_o, state) => {
      const sql = state.storage.sql;
      // As an object created before the totals: its rows, no totals tables.
      for (const t of ["totals_marks", "verdict_totals", "usage_totals", "usage_models", "trait_totals"])
        sql.exec(`DROP TABLE IF EXISTS ${t}`);
      const totals = totalsOf(state);
      totals.ensure();
      expect(comparable(fromTotals(totals))).toEqual(comparable(grouped(sql)));
      expect(totals.resultCounts().done).toBe(40);
    });
    await stub.applyBatch(record(all.slice(40)));
    await runInDurableObject(stub, async (_o, state) => {
      expect(comparable(fromTotals(totalsOf(state)))).toEqual(comparable(grouped(state.storage.sql)));
    });
  });

  it("go with the run when it is purged", async () => {
    const all = results(5);
    const stub = await freshRun("purged", [...new Set(all.map((r) => r.job_id))]);
    await stub.applyBatch(record(all));
    expect((await stub.snapshot())!.progress.done).toBe(all.length);
    await stub.purge();
    await runInDurableObject(stub, async (_o, state) => {
      const totals = totalsOf(state);
      expect(totals.resultCounts()).toEqual({ done: 0, graded: 0 });
      expect(totals.read({ reported: true })).toEqual({ verdicts: [], usage: [], unpriced: [], reported: [], traits: [] });
    });
  });
});
