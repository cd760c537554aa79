/**
 * Agentic parsing (stage 7b) through the real queue, in workerd: the answer only points at a file;
 * the plain parse misses the value, the dynamic decision escalates, the judge's investigation
 * agent greps the question's R2 workspace, and the extraction recovers the field. The fake judge is
 * scripted per step (decision, investigation turns on the previous tool result, extraction).
 */
import { describe, expect, it } from "vitest";
import { addFakeRules, allResults, exactTemplate, fakeModel, fakeStats, submitRun, uniqueModel, waitForRun } from "./helpers";

const ANSWER = "Done: the final answer is in results/summary.txt.";
const question = {
  id: "q-ws-answer",
  question: "What is six times seven? Write the answer to a file.",
  template: exactTemplate("42"),
  workspace_files: { "results/summary.txt": "final answer: 42\n" },
};

async function runWith(config: Record<string, unknown>) {
  const answerer = uniqueModel("ap-ans");
  const judge = uniqueModel("ap-judge");
  await addFakeRules([
    { match: { model: answerer }, reply: { text: ANSWER } },
    // The dynamic decision: the final message names no value.
    {
      match: { model: judge, kind: "structured", contains: "PARSING DECISION" },
      reply: { json: { reasoning: "It only points at results/summary.txt.", sufficient: false, answer: null } },
    },
    // The investigation: grep, then report what the grep found.
    {
      match: { model: judge, kind: "tools", last_tool_result: "final answer" },
      reply: { text: "results/summary.txt says: {{last_tool_result}}" },
    },
    { match: { model: judge, kind: "tools" }, reply: { tool_calls: [{ name: "grep", arguments: { pattern: "final answer" } }] } },
    // The extraction from the investigation report.
    { match: { model: judge, kind: "structured", contains: "INVESTIGATION REPORT" }, reply: { json: { answer: "42" } } },
    // The plain parse of the answer: there is no number in it.
    { match: { model: judge, kind: "structured" }, reply: { json: { answer: null } } },
  ]);
  const runId = await submitRun({
    benchmark: { name: "agentic-parsing", questions: [question] },
    config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)], ...config },
  });
  expect((await waitForRun(runId)).status).toBe("completed");
  const [result] = await allResults(runId);
  return { result, judgeCalls: (await fakeStats(judge)).total };
}

describe("agentic parsing in a run", () => {
  it("the plain parse misses the value that is only in the workspace", async () => {
    const { result, judgeCalls } = await runWith({});
    expect(result.template.parsed_llm_response).toEqual({ answer: null });
    expect(result.template.verify_result).toBe(false);
    expect(result.template).toMatchObject({ agentic_parsing_performed: false, dynamic_parsing_performed: false });
    expect(judgeCalls).toBe(1);
  });

  it("dynamic agentic parsing escalates, greps the workspace and recovers the field; the result says so", async () => {
    const { result, judgeCalls } = await runWith({ agentic_parsing: true, agentic_parsing_trigger: "dynamic" });
    const t = result.template;
    expect(t.parsed_llm_response).toEqual({ answer: "42" });
    expect(t.verify_result).toBe(true);
    expect(t).toMatchObject({
      dynamic_parsing_performed: true,
      dynamic_parse_decision: "escalated",
      dynamic_decision_reasoning: "It only points at results/summary.txt.",
      agentic_parsing_performed: true,
      agentic_extraction_recovery: null,
      agentic_extraction_error: null,
    });
    expect(t.investigation_trace).toContain("results/summary.txt:1: final answer: 42");
    expect(Object.keys(t.usage_metadata)).toEqual(
      expect.arrayContaining(["dynamic_parsing_decision", "agentic_parsing_investigation", "agentic_parsing_extraction"]),
    );
    // Decision, two investigation turns, extraction.
    expect(judgeCalls).toBe(4);
  });
});
