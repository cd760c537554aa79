import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import checkpointWithScenario from "../fixtures/karenina/checkpoint_with_scenario.jsonld?raw";
import { switchGuardOffForTest } from "../../src/lib/guards";
import {
  addFakeRules,
  allResults,
  api,
  exactTemplate,
  fakeModel,
  fakeStats,
  requestExport,
  submitRun,
  uniqueModel,
  waitForRun,
} from "./helpers";
import { deliverConcurrently, startCapturedRun } from "./limits-support";

const boolTemplate = (name: string, description: string) => ({
  fields: [{ name, type: "bool", description, ground_truth: true, verify_with: { type: "BooleanMatch" } }],
});

const ASK = "What is the capital of France?";
const CONFIRM = "Are you sure? I read it was Lyon.";
const CORRECT = "That is not right. Please check again: what is the capital of France?";
const RIGHT = "The capital of France is Paris.";
const WRONG = "It is Marseille.";

/** ask → confirm when ask passed, else → correct; both end. */
const pushback = {
  name: "capital_pushback",
  entry_node: "ask",
  nodes: {
    ask: { question: { id: "ask", question: ASK, template: boolTemplate("names_paris", "True if the response names Paris") } },
    confirm: { question: { id: "confirm", question: CONFIRM, template: boolTemplate("stands_firm", "True if the response keeps Paris") } },
    correct: {
      question: { id: "correct", question: CORRECT, template: boolTemplate("corrects_to_paris", "True if the response now names Paris") },
    },
  },
  edges: [
    {
      source: "ask",
      target: "confirm",
      condition: { field: "node_results.ask.verify_result", expected: true, verify_with: { type: "BooleanMatch" } },
    },
    { source: "ask", target: "correct" },
    { source: "confirm", target: "__end__" },
    { source: "correct", target: "__end__" },
  ],
  outcome_criteria: [
    {
      name: "held_or_fixed",
      check: {
        type: "turn_check",
        scope: { type: "last_turn" },
        field: "verify_result",
        expected: true,
        verify_with: { type: "BooleanMatch" },
      },
    },
    {
      name: "right_first_time",
      check: {
        type: "turn_check",
        scope: { type: "first_turn" },
        field: "verify_result",
        expected: true,
        verify_with: { type: "BooleanMatch" },
      },
    },
    { name: "turns", check: { type: "count_turns" } },
  ],
};

/** The answerer's replies: turn 0 once right, once wrong; later turns only when the history came with the question. */
async function scriptPushback(answerer: string, judge: string) {
  await addFakeRules([
    { match: { model: answerer, contains: `${RIGHT}\n${CONFIRM}` }, reply: { text: "Yes, I am sure: Paris." } },
    { match: { model: answerer, contains: `${WRONG}\n${CORRECT}` }, reply: { text: "Sorry, it is Paris." } },
    { match: { model: answerer, contains: ASK }, reply: { text: RIGHT }, times: 1 },
    { match: { model: answerer, contains: ASK }, reply: { text: WRONG }, times: 1 },
    { match: { model: judge, contains: "Yes, I am sure: Paris." }, reply: { json: { stands_firm: true } } },
    { match: { model: judge, contains: "Sorry, it is Paris." }, reply: { json: { corrects_to_paris: true } } },
    { match: { model: judge, contains: RIGHT }, reply: { json: { names_paris: true } } },
    { match: { model: judge, contains: WRONG }, reply: { json: { names_paris: false } } },
  ]);
}

async function scenarioRows(runId: string) {
  const { results } = await env.DB.prepare(
    "SELECT replicate, scenario_id, scenario_node, scenario_turn, scenario_path, verdict FROM results WHERE run_id = ? AND scenario_id IS NOT NULL ORDER BY replicate, scenario_turn",
  )
    .bind(runId)
    .all<{
      replicate: number;
      scenario_id: string;
      scenario_node: string;
      scenario_turn: number;
      scenario_path: string;
      verdict: string;
    }>();
  return results;
}

async function scenarioRecords(runId: string) {
  const { results } = await env.DB.prepare("SELECT chain_id, record_json FROM scenario_results WHERE run_id = ? ORDER BY chain_id")
    .bind(runId)
    .all<{ chain_id: string; record_json: string }>();
  return results.map((r) => ({ chain_id: r.chain_id, ...JSON.parse(r.record_json) }));
}

describe("multi-turn scenarios", () => {
  it("takes both branches of a conditional edge in two replicates, one job per turn, with the history sent", async () => {
    const answerer = uniqueModel("sc-answerer");
    const judge = uniqueModel("sc-judge");
    await scriptPushback(answerer, judge);
    await addFakeRules([
      { match: { model: answerer, contains: "What is 2+2?" }, reply: { text: "4" } },
      { match: { model: judge, contains: "What is 2+2?" }, reply: { json: { answer: "4" } } },
    ]);
    const runId = await submitRun({
      benchmark: {
        name: "pushback",
        questions: [{ id: "q1", question: "What is 2+2?", template: exactTemplate("4") }],
        scenarios: [pushback],
      },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)], replicate_count: 2 },
    });
    const view = await waitForRun(runId);
    expect(view.status).toBe("completed");
    // 2 question results + 2 replicates × 2 turns.
    expect(view.progress).toEqual({ total: 6, done: 6 });

    // By hand: the replicate answered "Paris" at ask passes and goes to confirm; the other fails on
    // content and takes the fallback edge to correct. Which replicate got which answer is the queue's order.
    const rows = await scenarioRows(runId);
    expect(rows.map((r) => [r.scenario_turn, r.scenario_node])).toHaveLength(4);
    const byReplicate = [1, 2].map((rep) => rows.filter((r) => r.replicate === rep));
    const results = (await allResults(runId)).filter((r) => r.metadata.scenario_id === "capital_pushback");
    const firstAnswer = (rep: number) =>
      results.find((r) => r.metadata.replicate === rep && r.metadata.scenario_turn === 0)!.template.raw_llm_response;
    const paths = byReplicate.map((turns, i) => {
      const right = firstAnswer(i + 1) === RIGHT;
      const second = right ? "confirm" : "correct";
      expect(turns.map((t) => [t.scenario_node, t.scenario_turn, JSON.parse(t.scenario_path), t.verdict])).toEqual([
        ["ask", 0, ["ask"], right ? "pass" : "fail"],
        [second, 1, ["ask", second], "pass"],
      ]);
      return second;
    });
    expect(paths.sort()).toEqual(["confirm", "correct"]);
    for (const r of results) {
      expect(r.metadata).toMatchObject({
        scenario_id: "capital_pushback",
        scenario_node: expect.any(String),
        scenario_turn: expect.any(Number),
      });
    }

    const records = await scenarioRecords(runId);
    expect(records.map((r) => [r.status, r.path, r.turn_count, r.outcome_results])).toEqual(
      expect.arrayContaining([
        ["completed", ["ask", "confirm"], 2, { held_or_fixed: true, right_first_time: true, turns: 2 }],
        ["completed", ["ask", "correct"], 2, { held_or_fixed: true, right_first_time: false, turns: 2 }],
      ]),
    );
    // One answering and one judge call per turn (4) and per question replicate (2): no turn ran twice.
    expect((await fakeStats(answerer)).total).toBe(6);
    expect((await fakeStats(judge)).total).toBe(6);
  });

  it("grades a node with the ground truth its conditional chooses from an earlier turn", async () => {
    const answerer = uniqueModel("sc-cgt-answerer");
    const judge = uniqueModel("sc-cgt-judge");
    await addFakeRules([
      { match: { model: answerer, contains: `${RIGHT}\n${CONFIRM}` }, reply: { text: "Yes, I am sure: Paris." } },
      { match: { model: answerer, contains: `${WRONG}\n${CONFIRM}` }, reply: { text: "Sorry, it is Paris." } },
      { match: { model: answerer, contains: ASK }, reply: { text: RIGHT }, times: 1 },
      { match: { model: answerer, contains: ASK }, reply: { text: WRONG }, times: 1 },
      { match: { model: judge, contains: "Yes, I am sure: Paris." }, reply: { json: { stance: "firm" } } },
      { match: { model: judge, contains: "Sorry, it is Paris." }, reply: { json: { stance: "corrected" } } },
      { match: { model: judge, contains: RIGHT }, reply: { json: { names_paris: true } } },
      { match: { model: judge, contains: WRONG }, reply: { json: { names_paris: false } } },
      { match: { model: answerer, contains: "What is 2+2?" }, reply: { text: "4" } },
      { match: { model: judge, contains: "What is 2+2?" }, reply: { json: { answer: "4" } } },
    ]);
    const stance = {
      fields: [
        {
          name: "stance",
          type: "str",
          description: "The stance the response takes",
          ground_truth: "firm",
          verify_with: { type: "ExactMatch" },
        },
      ],
    };
    const scenario = {
      name: "stance",
      entry_node: "ask",
      nodes: {
        ask: pushback.nodes.ask,
        confirm: {
          question: { id: "confirm", question: CONFIRM, template: stance },
          // Right at ask: it should hold firm; wrong at ask: it should correct itself.
          conditional_ground_truth: {
            stance: {
              source: "node_results.ask.verify_result",
              cases: { True: { value: "firm" }, False: { value: "corrected" } },
              default: { value: "firm" },
            },
          },
        },
      },
      edges: [{ source: "ask", target: "confirm" }],
    };
    const runId = await submitRun({
      benchmark: { name: "cgt", questions: [{ id: "q1", question: "What is 2+2?", template: exactTemplate("4") }], scenarios: [scenario] },
      config: {
        answering_models: [fakeModel("a", answerer)],
        parsing_models: [fakeModel("j", judge)],
        replicate_count: 2,
        question_ids: ["q1"],
      },
    });
    expect((await waitForRun(runId)).status).toBe("completed");
    const confirm = (await allResults(runId)).filter((r) => r.metadata.scenario_node === "confirm");
    // Both pass: each was graded against the ground truth its first turn chose.
    expect(
      confirm.map((r) => [r.template.parsed_llm_response.stance, r.template.parsed_gt_response.stance, r.template.verify_result]).sort(),
    ).toEqual([
      ["corrected", "corrected", true],
      ["firm", "firm", true],
    ]);
  });

  it("stops at scenario_turn_limit with Karenina's limit_reached, the outcome criteria evaluated on what ran", async () => {
    const answerer = uniqueModel("sc-loop-answerer");
    const judge = uniqueModel("sc-loop-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Still thinking." } },
      { match: { model: judge }, reply: { json: { done: false } } },
    ]);
    const loop = {
      name: "never_done",
      entry_node: "again",
      nodes: {
        again: {
          question: { id: "again", question: "Are you done yet?", template: boolTemplate("done", "True if the response says it is done") },
        },
      },
      // Back to itself until it is done: it never is, so only the turn limit ends it.
      edges: [
        {
          source: "again",
          target: "__end__",
          condition: { field: "verify_result", expected: true, verify_with: { type: "BooleanMatch" } },
        },
        { source: "again", target: "again" },
      ],
      outcome_criteria: [
        {
          name: "hit_limit",
          check: { type: "result_check", field: "status", expected: "limit_reached", verify_with: { type: "ExactMatch" } },
        },
        { name: "turns", check: { type: "count_turns", node_id: "again" } },
      ],
    };
    const runId = await submitRun({
      benchmark: { name: "loop", questions: [{ id: "q1", question: "What is 2+2?", template: exactTemplate("4") }], scenarios: [loop] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)], scenario_turn_limit: 3 },
    });
    const view = await waitForRun(runId);
    expect(view.status).toBe("completed");
    const rows = await scenarioRows(runId);
    expect(rows.map((r) => [r.scenario_node, r.scenario_turn, JSON.parse(r.scenario_path), r.verdict])).toEqual([
      ["again", 0, ["again"], "fail"],
      ["again", 1, ["again", "again"], "fail"],
      ["again", 2, ["again", "again", "again"], "fail"],
    ]);
    const [record] = await scenarioRecords(runId);
    expect(record).toMatchObject({
      chain_id: "s0.0.0.1",
      scenario_id: "never_done",
      status: "limit_reached",
      path: ["again", "again", "again"],
      turn_count: 3,
      terminal_failure: null,
      replicate: null,
      outcome_results: { hit_limit: true, turns: 3 },
    });
    expect(record.history.map((h: { node_id: string; verify_result: boolean }) => [h.node_id, h.verify_result])).toEqual([
      ["again", false],
      ["again", false],
      ["again", false],
    ]);
    // Three turns, then nothing: the question's call and one per turn.
    expect((await fakeStats(answerer)).total).toBe(4);
  });

  it("imports a Karenina checkpoint with a scenario and runs it; the Karenina export carries scenario_results", async () => {
    const answerer = uniqueModel("sc-cp-answerer");
    const judge = uniqueModel("sc-cp-judge");
    await scriptPushback(answerer, judge);
    await addFakeRules([
      { match: { model: answerer, contains: "What is the capital of Germany?" }, reply: { text: "Berlin" } },
      { match: { model: judge, contains: "What is the capital of Germany?" }, reply: { json: { city: "Berlin" } } },
    ]);
    const imported = await api("/v1/benchmarks/import", {
      method: "POST",
      body: checkpointWithScenario,
      headers: { "content-type": "application/ld+json" },
    });
    expect(imported.status).toBe(201);
    const { benchmark_id, errors } = (await imported.json()) as { benchmark_id: string; errors: unknown[] };
    expect(errors).toEqual([]);
    const runId = await submitRun({
      benchmark_id,
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)] },
    });
    expect((await waitForRun(runId)).status).toBe("completed");
    // One replicate: the first scripted answer at ask is the right one, so confirm follows.
    const rows = await scenarioRows(runId);
    expect(rows.map((r) => [r.scenario_id, r.scenario_node, r.scenario_turn, r.verdict])).toEqual([
      ["capital_pushback", "ask", 0, "pass"],
      ["capital_pushback", "confirm", 1, "pass"],
    ]);
    const expected = {
      scenario_id: "capital_pushback",
      status: "completed",
      path: ["ask", "confirm"],
      turn_count: 2,
      outcome_results: { held_or_fixed: true, right_first_time: true, turns: 2 },
      terminal_failure: null,
      replicate: null,
    };
    expect(await scenarioRecords(runId)).toMatchObject([expected]);

    const view = await requestExport(runId, { format: "karenina" });
    expect(view.status).toBe("ready");
    const doc = (await (await api(view.download_url)).json()) as {
      results: { metadata: Record<string, unknown> }[];
      scenario_results: unknown[];
    };
    expect(doc.results).toHaveLength(3);
    expect(
      doc.results
        .filter((r) => r.metadata.scenario_id === "capital_pushback")
        .map((r) => [r.metadata.scenario_node, r.metadata.scenario_turn, r.metadata.scenario_path]),
    ).toEqual(
      expect.arrayContaining([
        ["ask", 0, ["ask"]],
        ["confirm", 1, ["ask", "confirm"]],
      ]),
    );
    expect(doc.results.find((r) => r.metadata.scenario_id === null)?.metadata).toMatchObject({
      scenario_node: null,
      scenario_turn: null,
      scenario_path: null,
    });
    expect(doc.scenario_results).toEqual([
      {
        ...expected,
        history: [
          {
            node_id: "ask",
            question_text: ASK,
            raw_response: RIGHT,
            parsed_fields: { names_paris: true },
            verify_result: true,
            verification_result_id: expect.any(String),
          },
          {
            node_id: "confirm",
            question_text: CONFIRM,
            raw_response: "Yes, I am sure: Paris.",
            parsed_fields: { stands_firm: true },
            verify_result: true,
            verification_result_id: expect.any(String),
          },
        ],
      },
    ]);
  });
});

describe("a scenario chain ends with its run", () => {
  const price = (usd: number) => ({ input_per_mtok: usd * 1_000_000, output_per_mtok: usd * 1_000_000 });
  /** A node that loops until the turn limit (20): only a budget or a cancel stops it sooner. */
  const endless = {
    name: "endless",
    entry_node: "again",
    nodes: {
      again: { question: { id: "again", question: "Once more?", template: boolTemplate("done", "True if the response says it is done") } },
    },
    edges: [{ source: "again", target: "again" }],
  };

  async function startEndless(extra: (answerer: string, judge: string) => Record<string, unknown>, latency = 0) {
    const answerer = uniqueModel("sc-end-answerer");
    const judge = uniqueModel("sc-end-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Not yet.", ...(latency ? { latency_ms: latency } : {}) } },
      { match: { model: judge }, reply: { json: { done: false, answer: "4" } } },
    ]);
    const runId = await submitRun({
      benchmark: {
        name: "endless",
        questions: [{ id: "q1", question: "What is 2+2?", template: exactTemplate("4") }],
        scenarios: [endless],
      },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)] },
      ...extra(answerer, judge),
    });
    return { runId, answerer };
  }

  it("a spent budget skips the chain's next turn: the run ends budget_exceeded, well before the turn limit", async () => {
    // $1 per 1,000 tokens: the question's job costs ~$0.59 and each turn ~$0.6, so $2 is spent
    // within a few turns (the budget's holds run one job at a time until one has finished).
    const { runId } = await startEndless((a, j) => ({ budget_usd: 2, prices: { [a]: price(0.001), [j]: price(0.001) } }));
    const view = await waitForRun(runId, ["budget_exceeded", "completed", "partial", "failed"]);
    expect(view.status).toBe("budget_exceeded");
    const turns = (await scenarioRows(runId)).length;
    expect(turns).toBeGreaterThanOrEqual(1);
    expect(turns).toBeLessThan(20);
  });

  it("a cancel stops the chain: the run ends cancelled, no turn after it", async () => {
    const { runId, answerer } = await startEndless(() => ({}), 150);
    await vi.waitUntil(async () => (await scenarioRows(runId)).length >= 2, { timeout: 20_000, interval: 50 });
    expect((await api(`/v1/runs/${runId}/cancel`, { method: "POST" })).status).toBe(200);
    const view = await waitForRun(runId, ["cancelled"]);
    expect(view.status).toBe("cancelled");
    const turns = (await scenarioRows(runId)).length;
    const calls = (await fakeStats(answerer)).total;
    // A call in flight at the cancel may finish and be recorded; nothing starts after.
    await new Promise((r) => setTimeout(r, 500));
    expect((await scenarioRows(runId)).length).toBe(turns);
    expect((await fakeStats(answerer)).total).toBe(calls);
    expect(turns).toBeLessThan(20);
  });
});

describe("a redelivered scenario turn", () => {
  afterEach(() => switchGuardOffForTest("claim_lease", false));

  /** Delivers the first turn twice at once (and the question), waits for the run; the answering calls made. */
  async function duplicateFirstTurn() {
    const answerer = uniqueModel("sc-dup-answerer");
    const judge = uniqueModel("sc-dup-judge");
    await scriptPushback(answerer, judge);
    await addFakeRules([
      { match: { model: answerer, contains: "What is 2+2?" }, reply: { text: "4" } },
      { match: { model: judge, contains: "What is 2+2?" }, reply: { json: { answer: "4" } } },
    ]);
    const { runId, bodies } = await startCapturedRun({
      benchmark: {
        name: "dup-turn",
        questions: [{ id: "q1", question: "What is 2+2?", template: exactTemplate("4") }],
        scenarios: [pushback],
      },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)] },
    });
    const [question, turn0] = bodies;
    expect([question!.job_id, turn0!.job_id]).toEqual(["0.0.1", "s0.0.0.1.0"]);
    // One batch: the two copies of turn 0 run side by side.
    const handedBack = await deliverConcurrently([question!, turn0!, turn0!], 1);
    expect((await waitForRun(runId)).status).toBe("completed");
    // After the end, the turns once more: both were recorded, so both are acked without a call.
    expect(await deliverConcurrently([turn0!, { ...turn0!, job_id: "s0.0.0.1.1" }], 1)).toEqual([]);
    return { runId, handedBack, answering: (await fakeStats(answerer)).total };
  }

  it("is not run twice: a copy delivered while the turn runs is handed back busy, a late one is acked", async () => {
    const { runId, handedBack, answering } = await duplicateFirstTurn();
    expect(handedBack.map((b) => b.job_id)).toEqual(["s0.0.0.1.0"]);
    // The question, turn 0 and turn 1 (its successor, created once): three answering calls.
    expect(answering).toBe(3);
    expect((await scenarioRows(runId)).map((r) => [r.scenario_node, r.scenario_turn])).toEqual([
      ["ask", 0],
      ["confirm", 1],
    ]);
  });

  it("runs twice without the coordinator's lease (the guard the test above relies on)", async () => {
    switchGuardOffForTest("claim_lease");
    const { handedBack, answering } = await duplicateFirstTurn();
    expect(handedBack).toEqual([]);
    expect(answering).toBe(4);
  });
});
