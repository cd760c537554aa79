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

const trait = (over: Partial<AgenticTrait> = {}): AgenticTrait => ({
  name: "has_csv",
  description: "Did the assistant produce a valid CSV?",
  kind: "boolean",
  context_mode: "workspace_only",
  ...over,
});

describe("agentic rubric traits: individual strategy", () => {
  it("investigates the workspace with tools, then extracts a boolean from the trace", async () => {
    const port = investigator();
    const out = await evaluateAgenticTraits([trait()], { strategy: "individual" }, ctx(port));
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
    await evaluateAgenticTraits([trait({ context_mode: "trace_only" })], { strategy: "individual" }, ctx(a));
    expect(a.turns[0]!.tools).toEqual([]);
    expect(a.turns[0]!.messages[1]!.content).toContain(`--- ANSWERING AGENT TRACE ---\n${TRACE}`);
    expect(a.turns[0]!.messages[1]!.content).not.toContain("Workspace directory");
    const b = toolPort({ turn: () => ({ text: "fine" }), structured: () => ({ result: false }) });
    await evaluateAgenticTraits([trait({ context_mode: "trace_and_workspace" })], { strategy: "individual" }, ctx(b));
    expect(b.turns[0]!.messages[1]!.content).toContain(TRACE);
    expect(b.turns[0]!.messages[1]!.content).toContain("Workspace directory");
    expect(b.turns[0]!.tools).toHaveLength(3);
  });

  it("extracts per kind: score clamped, literal to its index (-1 for an unknown class), template fields as trait.field", async () => {
    const replies: Record<string, unknown> = {
      SingleNumericScore: { score: 11 },
      SingleLiteralClassification: { classification: "GOOD" },
      AgenticTemplateTrait: { rows: 3, header_ok: true },
    };
    const port = toolPort({ turn: () => ({ text: "done" }), structured: (r) => replies[r.schemaName] });
    const traits: AgenticTrait[] = [
      trait({ name: "quality", kind: "score", min_score: 0, max_score: 10 }),
      trait({ name: "grade", kind: "literal", classes: { bad: "poor", good: "fine" } }),
      trait({
        name: "csv",
        kind: { type: "template", schema: { type: "object", properties: { rows: { type: "integer" }, header_ok: { type: "boolean" } } } },
      }),
    ];
    const out = await evaluateAgenticTraits(traits, { strategy: "individual" }, ctx(port));
    expect(out.artifact.agentic_trait_scores).toEqual({ quality: 10, grade: 1, "csv.rows": 3, "csv.header_ok": true });
    replies.SingleLiteralClassification = { classification: "excellent" };
    const again = await evaluateAgenticTraits([traits[1]!], { strategy: "individual" }, ctx(port));
    expect(again.artifact.agentic_trait_scores).toEqual({ grade: -1 });
  });

  it("a failed investigation gives (null, null); a failed extraction keeps the trace with a null score", async () => {
    const broken = toolPort({ turn: () => ({ kind: "server_error", message: "down" }) });
    const a = await evaluateAgenticTraits([trait()], { strategy: "individual" }, ctx(broken));
    expect(a.artifact.agentic_trait_scores).toEqual({ has_csv: null });
    expect(a.artifact.agentic_trait_investigation_traces).toEqual({ has_csv: null });
    expect(a.warnings[0]).toContain("investigation failed");
    expect(a.transient?.kind).toBe("server_error"); // transient: the job may be retried
    const badExtract = investigator("agent-model", () => ({ kind: "invalid_output", message: "no json" }));
    const b = await evaluateAgenticTraits([trait()], { strategy: "individual" }, ctx(badExtract));
    expect(b.artifact.agentic_trait_scores).toEqual({ has_csv: null });
    expect(b.artifact.agentic_trait_investigation_traces.has_csv).toContain("criterion is met");
    expect(b.transient).toBeUndefined(); // invalid output is not worth a redelivery
  });

  it("an agent that never stops calling tools fails at max_turns", async () => {
    const looping = toolPort({ turn: () => ({ tool_calls: [call("list_files", {})] }) });
    const out = await evaluateAgenticTraits([trait({ max_turns: 4 })], { strategy: "individual" }, ctx(looping));
    expect(looping.turns).toHaveLength(4);
    expect(out.artifact.agentic_trait_scores.has_csv).toBeNull();
    expect(out.warnings[0]).toContain("max_turns (4)");
  });

  it("an agent past its timeout stops before the next turn", async () => {
    const looping = toolPort({ turn: () => ({ tool_calls: [call("grep", { pattern: "a" })] }) });
    let t = 0;
    const out = await evaluateAgenticTraits(
      [trait({ timeout_seconds: 1 })],
      { strategy: "individual" },
      ctx(looping, { now: () => (t += 400) }),
    );
    expect(looping.turns.length).toBeLessThan(15);
    expect(out.warnings[0]).toContain("timed out");
  });
});

describe("agentic rubric traits: shared strategy", () => {
  const two = [
    trait({ name: "has_csv", max_turns: 3, context_mode: "workspace_only" }),
    trait({ name: "reported", max_turns: 9, context_mode: "trace_only", description: "Was the accuracy reported?" }),
  ];

  it("runs one investigation with merged settings, then extracts each trait from the shared trace", async () => {
    const port = investigator();
    const out = await evaluateAgenticTraits(two, { strategy: "shared" }, ctx(port));
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
    await evaluateAgenticTraits(two, { strategy: "shared" }, ctx(looping, { resolveModel: () => looping }));
    // 9 turns for the shared run (max of 3 and 9), then the individual fallback: has_csv's 3, and
    // one for the trace_only trait, which has no tools, so its first reply is final
    expect(looping.turns).toHaveLength(9 + 3 + 1);
  });

  it("falls back to individual when the traits resolve to different models", async () => {
    const a = investigator("model-a");
    const b = investigator("model-b");
    const out = await evaluateAgenticTraits(
      two,
      { strategy: "shared" },
      ctx((t) => (t.name === "has_csv" ? a : b)),
    );
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
    const out = await evaluateAgenticTraits(two, { strategy: "shared" }, ctx(port));
    expect(shared).toBe(false);
    expect(out.strategy_used).toBe("individual");
    expect(out.warnings[0]).toContain("shared investigation failed");
    expect(out.artifact.agentic_trait_scores).toEqual({ has_csv: false, reported: false });
  });

  it("a per-trait extraction failure in the shared strategy nulls that score and keeps the shared trace", async () => {
    const port = investigator("agent-model", () => ({ result: true }));
    let n = 0;
    const flaky = {
      ...port,
      structured: (async (req: never) =>
        n++ === 0 ? { ok: false, error: { kind: "invalid_output", message: "x" } } : port.structured(req)) as ModelPort["structured"],
    };
    const out = await evaluateAgenticTraits(two, { strategy: "shared" }, ctx(flaky));
    expect(out.artifact.agentic_trait_scores).toEqual({ has_csv: null, reported: true });
    expect(out.artifact.agentic_trait_investigation_traces.has_csv).toContain("Findings");
  });
});

describe("agentic rubric traits: agentic_rubric_parallel", () => {
  const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const four = ["t1", "t2", "t3", "t4"].map((name) => trait({ name, description: `${name}-desc` }));

  /** The investigator, slowed per trait so later traits finish first, counting turns in flight. */
  function slowedInvestigator() {
    const base = investigator("agent-model", () => ({ result: true }));
    const flight = { now: 0, peak: 0 };
    const port: ModelPort = {
      ...base,
      async toolTurn(req) {
        flight.peak = Math.max(flight.peak, ++flight.now);
        await tick(req.messages[0]!.content.includes("t1-desc") ? 25 : 2);
        flight.now -= 1;
        return base.toolTurn(req);
      },
      // t4's extraction fails: a warning and a null score, at t4's place in the output
      structured: (async (req: Parameters<ModelPort["structured"]>[0]) =>
        JSON.stringify(req.messages).includes("t4-desc")
          ? { ok: false, error: { kind: "invalid_output", message: "not JSON" } }
          : base.structured(req)) as ModelPort["structured"],
    };
    return { port, flight };
  }
  // t2 has no model with agent support: skipped with a warning
  const resolve = (port: ModelPort) => (t: AgenticTrait) => (t.name === "t2" ? null : port);

  it("investigates that many traits at a time and returns what one-after-another returns", async () => {
    const seq = slowedInvestigator();
    const one = await evaluateAgenticTraits(four, { strategy: "individual" }, ctx(resolve(seq.port)));
    const par = slowedInvestigator();
    const two = await evaluateAgenticTraits(four, { strategy: "individual", parallel: 2 }, ctx(resolve(par.port)));
    expect(seq.flight.peak).toBe(1);
    expect(par.flight.peak).toBe(2);
    expect(two.artifact).toEqual(one.artifact);
    expect(two.warnings).toEqual(one.warnings);
    expect(two.usage).toEqual(one.usage);
    expect(Object.keys(two.artifact.agentic_trait_scores)).toEqual(["t1", "t2", "t3", "t4"]);
    expect(two.artifact.agentic_trait_scores).toEqual({ t1: true, t2: null, t3: true, t4: null });
    expect(two.warnings.map((w) => w.split(":")[0])).toEqual(["agentic trait t2", "agentic trait t4"]);
  });

  it("extracts shared-strategy traits side by side, scores in trait order", async () => {
    const { port } = slowedInvestigator();
    let inFlight = 0;
    let peak = 0;
    const counting: ModelPort = {
      ...port,
      structured: (async (req: Parameters<ModelPort["structured"]>[0]) => {
        peak = Math.max(peak, ++inFlight);
        await tick(5);
        inFlight -= 1;
        return port.structured(req);
      }) as ModelPort["structured"],
    };
    const out = await evaluateAgenticTraits(four, { strategy: "shared", parallel: 3 }, ctx(counting));
    expect(out.strategy_used).toBe("shared");
    expect(peak).toBe(3);
    expect(Object.keys(out.artifact.agentic_trait_scores)).toEqual(["t1", "t2", "t3", "t4"]);
    expect(out.artifact.agentic_trait_scores).toEqual({ t1: true, t2: true, t3: true, t4: null });
  });
});
