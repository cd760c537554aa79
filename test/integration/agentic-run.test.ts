/**
 * Agentic rubric traits through the real queue: the judge's investigation agent greps the
 * materialized trace in the question's R2 workspace; the trace is gone afterwards unless a trait
 * sets persist_trace. The grep result landing in the investigation trace shows the file was in
 * R2 while the stage ran.
 */
import { describe, expect, it } from "vitest";
import { addFakeRules, allResults, fakeModel, r2Keys, submitRun, uniqueModel, waitForRun, runObjects } from "./helpers";

async function run(persist: boolean) {
  const answerer = uniqueModel("agent-ans");
  const judge = uniqueModel("agent-judge");
  await addFakeRules([
    { match: { model: answerer }, reply: { text: "Step 1: wrote out.txt\nStep 2: reported 42" } },
    // First tool turn: grep the traces folder; later turns get the fake's plain text (the loop ends).
    {
      match: { model: judge, kind: "tools" },
      reply: { tool_calls: [{ name: "grep", arguments: { pattern: "reported", prefix: ".karenina/traces/" } }] },
      times: 1,
    },
    { match: { model: judge, kind: "structured" }, reply: { json: { result: true } } },
  ]);
  const trait = {
    name: "reported_42",
    description: "Did the agent report 42?",
    kind: "boolean",
    higher_is_better: true,
    context_mode: "trace_only",
    materialize_trace: true,
    persist_trace: persist,
  };
  const runId = await submitRun({
    benchmark: {
      name: "agentic",
      questions: [{ id: "q-agent", question: "Compute and report the answer", rubric: { agentic_traits: [trait] } }],
    },
    config: { answering_models: [fakeModel("ans", answerer)], parsing_models: [fakeModel("judge", judge)], evaluation_mode: "rubric_only" },
  });
  const view = await waitForRun(runId);
  const [result] = await allResults(runId);
  return { view, result, keys: await r2Keys(`${runObjects(runId)}/workspaces/`) };
}

describe("agentic rubric traits in a run", () => {
  it("the materialized trace is readable in R2 during the stage and deleted afterwards", async () => {
    const { view, result, keys } = await run(false);
    expect(view.status).toBe("completed");
    expect(result.rubric.agentic_trait_scores).toEqual({ reported_42: true });
    expect(result.rubric.agentic_trait_investigation_traces.reported_42).toMatch(
      /\.karenina\/traces\/trace_q-agent_.*:2: Step 2: reported 42/,
    );
    expect(keys).toEqual([]);
  });

  it("persist_trace keeps it in the question's workspace", async () => {
    const { result, keys } = await run(true);
    expect(result.rubric.agentic_trait_scores).toEqual({ reported_42: true });
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^t\/default\/runs\/[^/]+\/workspaces\/q-agent\/\.karenina\/traces\/trace_q-agent_.*_r1\.txt$/);
  });
});

describe("benchmark workspace files in a run", () => {
  it("a workspace_only agent finds the question's files in its R2 workspace", async () => {
    const answerer = uniqueModel("ws-ans");
    const judge = uniqueModel("ws-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "I wrote results.csv" } },
      { match: { model: judge, kind: "tools" }, reply: { tool_calls: [{ name: "grep", arguments: { pattern: "42" } }] }, times: 1 },
      { match: { model: judge, kind: "structured" }, reply: { json: { result: true } } },
    ]);
    const trait = {
      name: "has_42",
      description: "Does results.csv contain 42?",
      kind: "boolean",
      higher_is_better: true,
      context_mode: "workspace_only",
    };
    const runId = await submitRun({
      benchmark: {
        name: "ws",
        questions: [
          {
            id: "q-ws",
            question: "Write results.csv",
            workspace_files: { "results.csv": "id,score\n1,42" },
            rubric: { agentic_traits: [trait] },
          },
        ],
      },
      config: {
        answering_models: [fakeModel("ans", answerer)],
        parsing_models: [fakeModel("judge", judge)],
        evaluation_mode: "rubric_only",
      },
    });
    await waitForRun(runId);
    const [result] = await allResults(runId);
    expect(result.rubric.agentic_trait_investigation_traces.has_42).toContain("results.csv:2: 1,42");
    expect(result.rubric.agentic_trait_scores).toEqual({ has_42: true });
    expect(await r2Keys(`${runObjects(runId)}/workspaces/q-ws/`)).toEqual([`${runObjects(runId)}/workspaces/q-ws/results.csv`]);
  });
});
