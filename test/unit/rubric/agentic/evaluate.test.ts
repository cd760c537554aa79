import { describe, expect, it } from "vitest";
import type { Message, ModelPort } from "../../../../src/llm/port";
import { evaluateAgenticTraits, type AgenticContext } from "../../../../src/rubric/agentic/evaluate";
import type { AgenticTrait } from "../../../../src/rubric/agentic/types";
import { call, memoryWorkspace, toolPort } from "../../../support/tool-port";

const TRACE = "I wrote results.csv with 3 rows and reported accuracy 0.91.";
const hasTool = (m: Message[]) => m.some((x) => x.role === "tool");

/** An agent that lists, reads results.csv, then reports. */
function investigator(model = "agent-model", structured: (schemaName: string) => unknown = () => ({ result: true })) {
  return toolPort({
    model,
    turn: (m) => {
      const tools = m.filter((x) => x.role === "tool").length;
      if (tools === 0) return { tool_calls: [call("list_files", {})] };
      if (tools === 1) return { tool_calls: [call("read_file", { path: "results.csv" })] };
      return { text: "Findings: results.csv has a header and 3 rows; the criterion is met." };
    },
    structured: (req) => structured(req.schemaName),
  });
}

function ctx(port: ModelPort | ((t: AgenticTrait) => ModelPort | null), over: Partial<AgenticContext> = {}): AgenticContext {
  let t = 0;
  return {
    question: "Produce results.csv",
    response: TRACE,
    workspace: memoryWorkspace({ "results.csv": "a,b\n1,2\n3,4\n5,6" }),
    trace_file: null,
    now: () => (t += 10),
    resolveModel: typeof port === "function" ? port : () => port,
    ...over,
  };
}

const trait = (over: Partial<AgenticTrait> = {}): AgenticTrait => ({ name: "has_csv", description: "Did the assistant produce a valid CSV?", kind: "boolean", context_mode: "workspace_only", ...over });

describe("agentic rubric traits: individual strategy", () => {
  it("investigates the workspace with tools, then extracts a boolean from the trace", async () => {
    const port = investigator();
    const out = await evaluateAgenticTraits([trait()], "individual", ctx(port));
    expect(out.artifact.agentic_trait_scores).toEqual({ has_csv: true });
    const trace = out.artifact.agentic_trait_investigation_traces.has_csv!;
    expect(trace).toContain("list_files");
    expect(trace).toContain("a,b\n1,2"); // the file content the agent read
    expect(trace).toContain("criterion is met");
    expect(port.turns).toHaveLength(3);
    expect(port.turns[0]!.tools.map((t) => t.name)).toEqual(["list_files", "read_file", "grep"]);
    // workspace_only: the answering trace is not shown
    expect(port.turns[0]!.messages[1]!.content).not.toContain(TRACE);
    expect(port.extractions[0]!.schemaName).toBe("SingleBooleanScore");
  });

  it("trace_only shows the trace and offers no tools; trace_and_workspace shows both", async () => {
    const a = toolPort({ turn: () => ({ text: "fine" }), structured: () => ({ result: false }) });
    await evaluateAgenticTraits([trait({ context_mode: "trace_only" })], "individual", ctx(a));
    expect(a.turns[0]!.tools).toEqual([]);
    expect(a.turns[0]!.messages[1]!.content).toContain(`--- ANSWERING AGENT TRACE ---\n${TRACE}`);
    expect(a.turns[0]!.messages[1]!.content).not.toContain("Workspace directory");
    const b = toolPort({ turn: () => ({ text: "fine" }), structured: () => ({ result: false }) });
    await evaluateAgenticTraits([trait({ context_mode: "trace_and_workspace" })], "individual", ctx(b));
    expect(b.turns[0]!.messages[1]!.content).toContain(TRACE);
    expect(b.turns[0]!.messages[1]!.content).toContain("Workspace directory");
    expect(b.turns[0]!.tools).toHaveLength(3);
  });

  it("extracts per kind: score clamped, literal to its index (-1 for an unknown class), template fields as trait.field", async () => {
    const replies: Record<string, unknown> = { SingleNumericScore: { score: 11 }, SingleLiteralClassification: { classification: "GOOD" }, AgenticTemplateTrait: { rows: 3, header_ok: true } };
    const port = toolPort({ turn: () => ({ text: "done" }), structured: (r) => replies[r.schemaName] });
    const traits: AgenticTrait[] = [
      trait({ name: "quality", kind: "score", min_score: 0, max_score: 10 }),
      trait({ name: "grade", kind: "literal", classes: { bad: "poor", good: "fine" } }),
      trait({ name: "csv", kind: { type: "template", schema: { type: "object", properties: { rows: { type: "integer" }, header_ok: { type: "boolean" } } } } }),
    ];
    const out = await evaluateAgenticTraits(traits, "individual", ctx(port));
    expect(out.artifact.agentic_trait_scores).toEqual({ quality: 10, grade: 1, "csv.rows": 3, "csv.header_ok": true });
    replies.SingleLiteralClassification = { classification: "excellent" };
    const again = await evaluateAgenticTraits([traits[1]!], "individual", ctx(port));
    expect(again.artifact.agentic_trait_scores).toEqual({ grade: -1 });
  });

  it("a failed investigation gives (null, null); a failed extraction keeps the trace with a null score", async () => {
    const broken = toolPort({ turn: () => ({ kind: "server_error", message: "down" }) });
    const a = await evaluateAgenticTraits([trait()], "individual", ctx(broken));
    expect(a.artifact.agentic_trait_scores).toEqual({ has_csv: null });
    expect(a.artifact.agentic_trait_investigation_traces).toEqual({ has_csv: null });
    expect(a.warnings[0]).toContain("investigation failed");
    expect(a.transient?.kind).toBe("server_error"); // transient: the job may be retried
    const badExtract = investigator("agent-model", () => ({ kind: "invalid_output", message: "no json" }));
    const b = await evaluateAgenticTraits([trait()], "individual", ctx(badExtract));
    expect(b.artifact.agentic_trait_scores).toEqual({ has_csv: null });
    expect(b.artifact.agentic_trait_investigation_traces.has_csv).toContain("criterion is met");
    expect(b.transient).toBeUndefined(); // invalid output is not worth a redelivery
  });

  it("an agent that never stops calling tools fails at max_turns", async () => {
    const looping = toolPort({ turn: () => ({ tool_calls: [call("list_files", {})] }) });
    const out = await evaluateAgenticTraits([trait({ max_turns: 4 })], "individual", ctx(looping));
    expect(looping.turns).toHaveLength(4);
    expect(out.artifact.agentic_trait_scores.has_csv).toBeNull();
    expect(out.warnings[0]).toContain("max_turns (4)");
  });

  it("an agent past its timeout stops before the next turn", async () => {
    const looping = toolPort({ turn: () => ({ tool_calls: [call("grep", { pattern: "a" })] }) });
    let t = 0;
    const out = await evaluateAgenticTraits([trait({ timeout_seconds: 1 })], "individual", ctx(looping, { now: () => (t += 400) }));
    expect(looping.turns.length).toBeLessThan(15);
    expect(out.warnings[0]).toContain("timed out");
  });
});

describe("agentic rubric traits: shared strategy", () => {
  const two = [trait({ name: "has_csv", max_turns: 3, context_mode: "workspace_only" }), trait({ name: "reported", max_turns: 9, context_mode: "trace_only", description: "Was the accuracy reported?" })];

  it("runs one investigation with merged settings, then extracts each trait from the shared trace", async () => {
    const port = investigator();
    const out = await evaluateAgenticTraits(two, "shared", ctx(port));
    expect(out.strategy_used).toBe("shared");
    expect(port.turns).toHaveLength(3); // one investigation, not two
    const user = port.turns[0]!.messages[1]!.content;
    expect(user).toContain(TRACE); // any trait wants the trace
    expect(user).toContain("Workspace directory"); // any trait wants the workspace
    expect(port.turns[0]!.messages[0]!.content).toContain("- has_csv:");
    expect(port.turns[0]!.messages[0]!.content).toContain("- reported:");
    expect(port.extractions).toHaveLength(2);
    expect(out.artifact.agentic_trait_scores).toEqual({ has_csv: true, reported: true });
    expect(out.artifact.agentic_trait_investigation_traces.has_csv).toBe(out.artifact.agentic_trait_investigation_traces.reported);
  });

  it("uses the largest max_turns of the traits", async () => {
    const looping = toolPort({ turn: () => ({ tool_calls: [call("list_files", {})] }) });
    await evaluateAgenticTraits(two, "shared", ctx(looping, { resolveModel: () => looping }));
    // 9 turns for the shared run (max of 3 and 9), then the individual fallback: has_csv's 3, and
    // one for the trace_only trait, which has no tools, so its first reply is final
    expect(looping.turns).toHaveLength(9 + 3 + 1);
  });

  it("falls back to individual when the traits resolve to different models", async () => {
    const a = investigator("model-a");
    const b = investigator("model-b");
    const out = await evaluateAgenticTraits(two, "shared", ctx((t) => (t.name === "has_csv" ? a : b)));
    expect(out.strategy_used).toBe("individual");
    expect(out.warnings[0]).toContain("different models");
    expect(a.turns).toHaveLength(3);
    expect(b.turns.length).toBeGreaterThan(0);
    expect(a.turns[0]!.messages[0]!.content).not.toContain("- reported:");
    expect(out.artifact.agentic_trait_scores).toEqual({ has_csv: true, reported: true });
  });

  it("falls back to individual when the shared investigation fails", async () => {
    let shared = true;
    const port = toolPort({
      turn: (m) => {
        if (m[0]!.content.includes("every criterion")) return { kind: "timeout", message: "agent timed out" };
        shared = false;
        return { text: "checked" };
      },
      structured: () => ({ result: false }),
    });
    const out = await evaluateAgenticTraits(two, "shared", ctx(port));
    expect(shared).toBe(false);
    expect(out.strategy_used).toBe("individual");
    expect(out.warnings[0]).toContain("shared investigation failed");
    expect(out.artifact.agentic_trait_scores).toEqual({ has_csv: false, reported: false });
  });

  it("a per-trait extraction failure in the shared strategy nulls that score and keeps the shared trace", async () => {
    const port = investigator("agent-model", () => ({ result: true }));
    let n = 0;
    const flaky = { ...port, structured: (async (req: never) => (n++ === 0 ? { ok: false, error: { kind: "invalid_output", message: "x" } } : port.structured(req))) as ModelPort["structured"] };
    const out = await evaluateAgenticTraits(two, "shared", ctx(flaky));
    expect(out.artifact.agentic_trait_scores).toEqual({ has_csv: null, reported: true });
    expect(out.artifact.agentic_trait_investigation_traces.has_csv).toContain("Findings");
  });
});
