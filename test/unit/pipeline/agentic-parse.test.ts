/**
 * Stage 7b through the whole pipeline (core): the dynamic decision, the escalation to an
 * investigation over the workspace, the extraction, local JSON recovery, and the result fields.
 */
import { describe, expect, it } from "vitest";
import type { Message, StructuredRequest } from "../../../src/llm/port";
import type { AgenticParsingSettings } from "../../../src/pipeline/artifacts";
import { runPipeline } from "../../../src/pipeline/orchestrator";
import { VerificationResult } from "../../../src/schemas/result";
import { scriptedPort } from "../../support/scripted-port";
import { call, memoryWorkspace, toolPort } from "../../support/tool-port";
import { clock, input } from "./helpers";

const settings = (over: Partial<AgenticParsingSettings> = {}): AgenticParsingSettings => ({
  trigger: "always",
  judge_context: "workspace_only",
  max_turns: 5,
  timeout_s: 60,
  materialize_trace: false,
  persist_trace: false,
  ...over,
});

/** The answer names a file but not the value; the workspace holds it. */
const ANSWER = "I computed it and wrote the organelle to results/answer.txt.";
const FILES = { "results/answer.txt": "organelle: mitochondrion" };

/** Greps the workspace, then reports what it found (ending with the JSON the extraction reads). */
const investigator = (m: Message[]) => {
  const last = m.at(-1);
  if (last?.role !== "tool") return { tool_calls: [call("grep", { pattern: "organelle" })] };
  return { text: `results/answer.txt reports it. {"organelle": "mitochondrion"}` };
};

function judge(opts: { decision?: unknown; extraction?: (req: StructuredRequest<unknown>) => unknown; turn?: typeof investigator } = {}) {
  return toolPort({
    turn: opts.turn ?? investigator,
    structured: (req) => {
      if (req.schemaName === "ParseDecision") return opts.decision;
      if (req.messages.some((x) => x.content.includes("INVESTIGATION REPORT")))
        return opts.extraction ? opts.extraction(req) : { organelle: "mitochondrion" };
      return { organelle: null }; // the plain parse: the answer itself names no organelle
    },
  });
}

async function run(agentic: AgenticParsingSettings | undefined, port = judge(), answer = ANSWER) {
  const ws = memoryWorkspace();
  const out = await runPipeline(
    input({ question: { ...input().question, workspace_files: FILES } }, agentic ? { agentic_parsing: agentic } : {}),
    {
      answerer: scriptedPort({ chat: () => answer }),
      judge: port,
      clock: clock(),
      workspace: ws,
    },
  );
  expect(VerificationResult.safeParse(out.result).success).toBe(true);
  return { result: out.result, port, ws };
}

describe("agentic parsing (stage 7b)", () => {
  it("the plain parse misses the value that only the workspace holds", async () => {
    const { result } = await run(undefined);
    expect(result.template!.parsed_llm_response).toEqual({ organelle: null });
    expect(result.template!.verify_result).toBe(false);
    expect(result.template).toMatchObject({
      agentic_parsing_performed: false,
      dynamic_parsing_performed: false,
      investigation_trace: null,
    });
  });

  it("trigger always: the investigation finds it in the workspace, the extraction reads the report", async () => {
    const { result, port } = await run(settings());
    expect(result.template!.parsed_llm_response).toEqual({ organelle: "mitochondrion" });
    expect(result.template!.verify_result).toBe(true);
    expect(result.template).toMatchObject({
      agentic_parsing_performed: true,
      dynamic_parsing_performed: false,
      dynamic_parse_decision: null,
      agentic_extraction_recovery: null,
    });
    expect(result.template!.investigation_trace).toContain("results/answer.txt:1: organelle: mitochondrion");
    expect(Object.keys(result.template!.usage_metadata!)).toEqual(
      expect.arrayContaining(["agentic_parsing_investigation", "agentic_parsing_extraction"]),
    );
    expect(port.turns[0]!.tools.map((t) => t.name)).toEqual(["list_files", "read_file", "grep"]);
  });

  it("trigger dynamic: a sufficient final message is parsed directly, with no agent", async () => {
    const port = judge({
      decision: { reasoning: "The answer names the organelle.", sufficient: true, answer: { organelle: "mitochondrion" } },
    });
    const { result } = await run(settings({ trigger: "dynamic" }), port, "The mitochondrion.");
    expect(result.template).toMatchObject({
      dynamic_parsing_performed: true,
      dynamic_parse_decision: "direct",
      dynamic_decision_reasoning: "The answer names the organelle.",
      agentic_parsing_performed: false,
    });
    expect(result.template!.verify_result).toBe(true);
    expect(port.turns).toHaveLength(0);
  });

  it("trigger dynamic: an insufficient final message escalates, and the investigation sees the decision's reasoning", async () => {
    const reasoning = "The answer only points at results/answer.txt.";
    const port = judge({ decision: { reasoning, sufficient: false, answer: null } });
    const { result } = await run(settings({ trigger: "dynamic" }), port);
    expect(result.template).toMatchObject({
      dynamic_parsing_performed: true,
      dynamic_parse_decision: "escalated",
      dynamic_decision_reasoning: reasoning,
      agentic_parsing_performed: true,
    });
    expect(result.template!.parsed_llm_response).toEqual({ organelle: "mitochondrion" });
    expect(port.turns[0]!.messages[1]!.content).toContain(`--- SCREENING REASONING ---\n${reasoning}`);
  });

  it("a failed extraction is recovered from the report's last JSON object, and says so", async () => {
    const port = judge({ extraction: () => ({ organelle: 7 }) });
    const { result } = await run(settings(), port);
    expect(result.template!.parsed_llm_response).toEqual({ organelle: "mitochondrion" });
    expect(result.template!.agentic_extraction_recovery).toBe("local_json");
    expect(result.template!.agentic_extraction_error).toMatch(/invalid_output/);
    expect(result.metadata.warnings.join(" ")).toMatch(/recovered locally/);
  });

  it("an investigation that runs out of turns is a parsing error, never a wrong answer", async () => {
    const forever = () => ({ tool_calls: [call("list_files", {}, crypto.randomUUID())] });
    const { result } = await run(settings({ max_turns: 2 }), judge({ turn: forever }));
    expect(result.template!.verify_result).toBeNull();
    expect(result.metadata.failure).toMatchObject({ category: "parsing", stage: "parse_template" });
    expect(result.metadata.error).toMatch(/max_turns \(2\)/);
  });

  it("materialize_trace: the trace is written for the agent to read and removed afterwards (kept with persist_trace)", async () => {
    const seen: string[] = [];
    const reader = (m: Message[]) => {
      const path = /saved in the workspace at: (\S+)/.exec(m[1]!.content)?.[1];
      const last = m.at(-1);
      if (last?.role === "tool") return (seen.push(last.content), { text: `{"organelle": "mitochondrion"}` });
      return { tool_calls: [call("read_file", { path })] };
    };
    for (const persist of [false, true]) {
      const { result, ws } = await run(
        settings({ judge_context: "trace_only", materialize_trace: true, persist_trace: persist }),
        judge({ turn: reader }),
      );
      expect(result.template!.verify_result).toBe(true);
      const traces = [...ws.files.keys()].filter((p) => p.startsWith(".karenina/traces/agentic_parse_"));
      expect(traces).toHaveLength(persist ? 1 : 0);
    }
    expect(seen).toEqual([ANSWER, ANSWER]);
  });
});
