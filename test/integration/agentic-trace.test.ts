/**
 * Stage 11b's materialized trace on the R2 workspace: present in R2 while the agent runs, gone
 * afterwards unless persist_trace.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { agenticRubricEvaluation, traceFilePath } from "../../src/pipeline/stages/agentic-rubric-evaluation";
import type { PipelineState } from "../../src/pipeline/types";
import { r2Workspace, workspacePrefix } from "../../src/adapters/workspace";
import { scriptedPort } from "../support/scripted-port";
import { call, toolPort } from "../support/tool-port";
import { clock, input, question } from "../unit/pipeline/helpers";

const ANSWER = "Step 1: wrote out.txt\nStep 2: reported 42";
const fresh = () => workspacePrefix({ run_id: `run-${crypto.randomUUID().slice(0, 8)}`, tenant_id: "default" }, "q1");

describe("stage 11b trace materialization in R2", () => {
  async function run(persist: boolean) {
    const prefix = fresh();
    const ws = r2Workspace(env.BLOBS, prefix);
    const trait = {
      name: "reported_42",
      description: "Did the agent report 42?",
      kind: "boolean",
      higher_is_better: true,
      context_mode: "trace_only",
      materialize_trace: true,
      persist_trace: persist,
    };
    const pipelineInput = input({ question: question({ rubric: { agentic_traits: [trait] } }) }, { evaluation_mode: "rubric_only" });
    const key = prefix + traceFilePath(pipelineInput);
    const during: (string | null)[] = [];
    const judge = toolPort({
      turn: (m) => {
        const tool = m.find((x) => x.role === "tool");
        if (!tool) return { tool_calls: [call("read_file", { path: /saved to: (\S+)/.exec(m[1]!.content)![1] })] };
        during.push(tool.content);
        return { text: "reports 42" };
      },
      structured: () => ({ result: true }),
    });
    const state: PipelineState = {
      started_at_ms: 0,
      parse_performed: false,
      usage: {},
      stages_run: [],
      answer: { raw_llm_response: ANSWER, trace_messages: [], usage: null },
    };
    const patch = await agenticRubricEvaluation.run(state, pipelineInput, {
      answerer: scriptedPort(),
      judge,
      clock: clock(),
      workspace: ws,
    });
    return { during, after: await env.BLOBS.get(key), patch };
  }

  it("the trace is in R2 while the agent investigates and deleted after the stage", async () => {
    const { during, after, patch } = await run(false);
    expect(during).toEqual([ANSWER]);
    expect(after).toBeNull();
    expect(patch.agentic_rubric!.agentic_trait_scores).toEqual({ reported_42: true });
  });

  it("persist_trace keeps the trace in R2 after the stage", async () => {
    const { during, after } = await run(true);
    expect(during).toEqual([ANSWER]);
    expect(await after!.text()).toBe(ANSWER);
  });
});
