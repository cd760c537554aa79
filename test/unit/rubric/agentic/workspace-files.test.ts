import { describe, expect, it } from "vitest";
import { agenticRubricEvaluation } from "../../../../src/pipeline/stages/agentic-rubric-evaluation";
import type { PipelineState } from "../../../../src/pipeline/types";
import { Question } from "../../../../src/schemas/benchmark";
import { scriptedPort } from "../../../support/scripted-port";
import { call, memoryWorkspace, toolPort } from "../../../support/tool-port";
import { clock, input } from "../../pipeline/helpers";

const q = (files: unknown) => Question.safeParse({ id: "q", question: "?", workspace_files: files });

describe("benchmark workspace files", () => {
  it("accepts relative paths and refuses absolute, '..' and '.' paths, folders and more than 1 MB", () => {
    expect(q({ a: "x", "data/results.csv": "a,b", ".hidden": "" }).success).toBe(true);
    for (const bad of ["/etc/passwd", "../x", "a/../b", "a/./b", "dir/", "a\\b"]) expect(q({ [bad]: "x" }).success, bad).toBe(false);
    expect(q({ big: "x".repeat(1024 * 1024 + 1) }).success).toBe(false);
  });

  it("are seeded into the question's workspace, where a workspace_only agent finds them", async () => {
    const question = Question.parse({
      id: "q1",
      question: "Write results.csv",
      workspace_files: { "results.csv": "id,score\n1,42" },
      rubric: {
        agentic_traits: [
          {
            name: "has_42",
            description: "Does results.csv contain 42?",
            kind: "boolean",
            higher_is_better: true,
            context_mode: "workspace_only",
          },
        ],
      },
    });
    const ws = memoryWorkspace();
    const judge = toolPort({
      turn: (m) => (m.some((x) => x.role === "tool") ? { text: "found it" } : { tool_calls: [call("grep", { pattern: "42" })] }),
      structured: () => ({ result: true }),
    });
    const state: PipelineState = {
      started_at_ms: 0,
      parse_performed: false,
      usage: {},
      stages_run: [],
      answer: { raw_llm_response: "done", trace_messages: [], usage: null },
    };
    const patch = await agenticRubricEvaluation.run(state, input({ question }, { evaluation_mode: "rubric_only" }), {
      answerer: scriptedPort(),
      judge,
      clock: clock(),
      workspace: ws,
    });
    expect(patch.agentic_rubric!.agentic_trait_investigation_traces.has_42).toContain("results.csv:2: 1,42");
    expect(ws.files.get("results.csv")).toBe("id,score\n1,42");
  });
});
