import { describe, expect, it } from "vitest";
import { runPipeline } from "../../../../src/pipeline/orchestrator";
import { agenticRubricEvaluation, traceFilePath } from "../../../../src/pipeline/stages/agentic-rubric-evaluation";
import type { PipelineState } from "../../../../src/pipeline/types";
import { VerificationResult } from "../../../../src/schemas/result";
import { scriptedPort } from "../../../support/scripted-port";
import { call, memoryWorkspace, toolPort } from "../../../support/tool-port";
import { clock, input, question } from "../../pipeline/helpers";

const ANSWER = "Step 1: wrote out.txt\nStep 2: reported 42";

function questionWith(traits: Record<string, unknown>[]) {
  return question({ rubric: { agentic_traits: traits } });
}
const base = {
  name: "reported_42",
  description: "Did the agent report 42?",
  kind: "boolean",
  higher_is_better: true,
  context_mode: "trace_only",
};

/** An agent that greps the materialized trace file (recording what it saw), then answers. */
function traceReader(seen: string[]) {
  return toolPort({
    turn: (m) => {
      const path = /saved to: (\S+)/.exec(m[1]!.content)?.[1];
      const tool = m.find((x) => x.role === "tool");
      if (path && !tool) return { tool_calls: [call("read_file", { path })] };
      if (tool) seen.push(tool.content);
      return { text: "The trace reports 42." };
    },
    structured: () => ({ result: true }),
  });
}

async function runStage(traits: Record<string, unknown>[], seen: string[]) {
  const ws = memoryWorkspace({ "out.txt": "42" });
  const pipelineInput = input({ question: questionWith(traits) }, { evaluation_mode: "rubric_only" });
  const state: PipelineState = {
    started_at_ms: 0,
    parse_performed: false,
    usage: {},
    stages_run: [],
    answer: { raw_llm_response: ANSWER, trace_messages: [], usage: null },
  };
  expect(agenticRubricEvaluation.shouldRun(state, pipelineInput)).toBe(true);
  const patch = await agenticRubricEvaluation.run(state, pipelineInput, {
    answerer: scriptedPort(),
    judge: traceReader(seen),
    clock: clock(),
    workspace: ws,
  });
  return { ws, patch, path: traceFilePath(pipelineInput) };
}

describe("stage 11b AgenticRubricEvaluation", () => {
  it("materialize_trace writes the trace into the workspace for the agent, and deletes it afterwards", async () => {
    const seen: string[] = [];
    const { ws, patch, path } = await runStage([{ ...base, materialize_trace: true }], seen);
    expect(seen).toEqual([ANSWER]); // the agent read the trace from the workspace during the stage
    expect(path.startsWith(".karenina/traces/trace_q1_run-1_ans_judge_r1")).toBe(true);
    expect(ws.files.has(path)).toBe(false);
    expect(patch.agentic_rubric!.agentic_trait_scores).toEqual({ reported_42: true });
  });

  it("persist_trace keeps the materialized trace after the stage", async () => {
    const seen: string[] = [];
    const { ws, path } = await runStage([{ ...base, materialize_trace: true, persist_trace: true }], seen);
    expect(ws.files.get(path)).toBe(ANSWER);
  });

  it("without materialize_trace the trace is inline and nothing is written", async () => {
    const seen: string[] = [];
    const { ws } = await runStage([base], seen);
    expect([...ws.files.keys()]).toEqual(["out.txt"]);
    expect(seen).toEqual([]);
  });

  it("runs in the pipeline for rubric modes and its scores land in the rubric section", async () => {
    const judge = toolPort({ turn: () => ({ text: "42 was reported" }), structured: () => ({ result: true }) });
    const { result } = await runPipeline(input({ question: questionWith([base]) }, { evaluation_mode: "rubric_only" }), {
      answerer: scriptedPort({ chat: () => ANSWER }),
      judge,
      clock: clock(),
    });
    const parsed = VerificationResult.parse(result);
    expect(parsed.rubric!.agentic_trait_scores).toEqual({ reported_42: true });
    expect(parsed.rubric!.agentic_trait_investigation_traces!.reported_42).toContain("42 was reported");
    expect(parsed.template!.usage_metadata!.agentic_rubric_evaluation).toBeDefined();
  });

  it("a rate-limited investigation leaves a null score and marks the job retryable", async () => {
    const judge = toolPort({ turn: () => ({ kind: "rate_limit", message: "429" }) });
    const pipelineInput = input({ question: questionWith([base]) }, { evaluation_mode: "rubric_only" });
    const state: PipelineState = {
      started_at_ms: 0,
      parse_performed: false,
      usage: {},
      stages_run: [],
      answer: { raw_llm_response: ANSWER, trace_messages: [], usage: null },
    };
    const patch = await agenticRubricEvaluation.run(state, pipelineInput, { answerer: scriptedPort(), judge, clock: clock() });
    expect(patch.agentic_rubric!.agentic_trait_scores).toEqual({ reported_42: null });
    expect(patch.transient_error?.kind).toBe("rate_limit");
  });

  it("a model_override runs that trait's agent on the override model; an invalid override is skipped with a warning", async () => {
    const other = toolPort({ model: "override-model", turn: () => ({ text: "override checked" }), structured: () => ({ result: false }) });
    const seen: string[] = [];
    const traits = [
      {
        ...base,
        name: "by_override",
        model_override: { id: "o", interface: "openai_compatible", model_name: "override-model", base_url: "http://o/v1" },
      },
      { ...base, name: "bad_override", model_override: { id: "x" } },
    ];
    const pipelineInput = input({ question: questionWith(traits) }, { evaluation_mode: "rubric_only" });
    const state: PipelineState = {
      started_at_ms: 0,
      parse_performed: false,
      usage: {},
      stages_run: [],
      answer: { raw_llm_response: ANSWER, trace_messages: [], usage: null },
    };
    const patch = await agenticRubricEvaluation.run(state, pipelineInput, {
      answerer: scriptedPort(),
      judge: traceReader(seen),
      clock: clock(),
      judgeModels: { model: (c) => (c.model_name === "override-model" ? other : scriptedPort()) },
    });
    expect(patch.agentic_rubric!.agentic_trait_scores).toEqual({ by_override: false, bad_override: null });
    expect(other.turns).toHaveLength(1);
    expect(patch.warnings!.join(" ")).toContain("bad_override: model_override is not a valid model config");
  });
});
