/**
 * Sharded aggregation (src/coordinator/shards.ts): the same 2,000-job run, once with its jobs
 * forced into coordinator shards of 100 (20 shards and a root) and once on one coordinator, ends
 * with the same status, summary, usage and results. Both runs are executed end to end: submit,
 * the shards' chunked enqueue, the queue, the fake judge, the shards' reports to the root.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { shardName } from "../../src/coordinator/shards";
import { addFakeRules, api, d1ResultRows, exactTemplate, fakeModel, uniqueModel, waitForRun } from "./helpers";
import { startWithShardJobs } from "./shard-helpers";

const QUESTIONS = 1_000;
const price = { input_per_mtok: 1_000, output_per_mtok: 2_000 };

/** 1,000 questions × 2 manual answering models = 2,000 jobs, one scripted judge: a third of the answers fail. */
function runBody(judge: string) {
  const questions = Array.from({ length: QUESTIONS }, (_, i) => ({
    id: `q${i}`,
    question: `Question ${i}?`,
    template: exactTemplate(i % 3 === 0 ? "Rome" : "Paris"),
  }));
  const answers = Object.fromEntries(questions.map((q, i) => [q.id, `Answer ${i}: Paris`]));
  return {
    benchmark: { name: "shards", questions },
    config: {
      answering_models: [
        { id: "m1", interface: "manual", manual_answers: answers },
        { id: "m2", interface: "manual", manual_answers: answers },
      ],
      parsing_models: [fakeModel("judge", judge)],
      replicate_count: 1,
    },
    prices: { [judge]: price },
  };
}

async function runWith(body: unknown, shardJobs: string | undefined) {
  const runId = await startWithShardJobs(body, shardJobs);
  await waitForRun(runId, ["completed", "partial", "failed"], 200_000);
  const view = (await (await api(`/v1/runs/${runId}`)).json()) as Record<string, any>;
  const summary = (await (await api(`/v1/runs/${runId}/summary?limit=100`)).json()) as Record<string, any>;
  const rows = await d1ResultRows(runId);
  return { runId, view, summary, rows };
}

/** The job rows a coordinator (a root, a shard) holds, by state. */
const jobStates = (name: string) =>
  runInDurableObject(env.RUNS.getByName(name), async (_i, state) =>
    Object.fromEntries(
      state.storage.sql
        .exec<{ state: string; n: number }>("SELECT state, COUNT(*) AS n FROM jobs GROUP BY state")
        .toArray()
        .map((r) => [r.state, r.n]),
    ),
  );

/** Everything but what differs between any two runs (the id, the times). */
const comparable = (view: Record<string, any>) => {
  const { run_id, created_at, finished_at, ...rest } = view;
  return rest;
};
const byTuple = (rows: { question_id: string; answering_model: string; parsing_model: string; replicate: number; verdict: string }[]) =>
  rows.map((r) => `${r.question_id}|${r.answering_model}|${r.parsing_model}|${r.replicate}|${r.verdict}`).sort();

describe("coordinator shards", () => {
  it("a 2,000-job run over 20 shards of 100 ends as the same run on one coordinator: status, summary, usage, results", async () => {
    const judge = uniqueModel("shards-judge");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "Paris" } } }]);
    const body = runBody(judge);
    const sharded = await runWith(body, "100");
    const single = await runWith(body, undefined);

    // The sharded run did run on 20 shards of 100 jobs, each of which closed all of its jobs.
    const root = `default:${sharded.runId}`;
    for (let s = 0; s <= 20; s++) expect(await jobStates(shardName(root, s))).toEqual(s < 20 ? { done: 100 } : {});
    expect(await jobStates(root)).toEqual({});
    expect(await jobStates(`default:${single.runId}`)).toEqual({ done: 2_000 });

    expect(sharded.view.status).toBe("completed");
    expect(comparable(sharded.view)).toEqual(comparable(single.view));
    expect(sharded.view.progress).toEqual({ total: 2_000, done: 2_000 });
    expect(sharded.view.usage.total.cost_usd).toBeGreaterThan(0);
    expect(sharded.summary.summary).toEqual(single.summary.summary);
    expect(sharded.summary.summary.map((p: any) => [p.passed, p.failed])).toEqual([
      [666, 334],
      [666, 334],
    ]);
    // Every result recorded once, the same results.
    expect(sharded.rows).toHaveLength(2_000);
    expect(new Set(sharded.rows.map((r) => r.result_id)).size).toBe(2_000);
    expect(byTuple(sharded.rows)).toEqual(byTuple(single.rows));
  }, 480_000);
});
