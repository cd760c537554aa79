import { describe, expect, it } from "vitest";
import { runCompoundJudge, validateJudge } from "../../../src/judges";
import { refsOf } from "../../../src/judges/template";
import { JudgeConfig } from "../../../src/schemas/judge";
import { judgePorts, testModel } from "../../support/judge-port";

const provider = testModel();
const sample = { input: "", output: "out", vars: {} };

describe("placeholders", () => {
  it("parses the spec's placeholders and refuses anything else with a hint", () => {
    expect(refsOf("{{output}} {{ input }} {{reference}} {{vars.a}} {{previous.explanation}} {{previous.j.answer}}").refs).toEqual([
      { kind: "output" },
      { kind: "input" },
      { kind: "reference" },
      { kind: "vars", name: "a" },
      { kind: "previous", field: "explanation" },
      { kind: "previous", field: "answer", unit: "j" },
    ]);
    expect(refsOf("{{previous.mood}} {{answer}}").errors).toEqual([
      "{{previous.mood}}: previous fields are explanation, answer, value, text, chosen, ranking",
      "unknown placeholder {{answer}}; use {{output}}, {{input}}, {{reference}}, {{vars.NAME}} or {{previous[.UNIT].FIELD}}",
    ]);
  });

  it("{{previous.FIELD}} joins several inputs by name; {{previous.NAME.FIELD}} reaches every repeat of a named ancestor", async () => {
    const h = judgePorts((c) => (c.call_site!.startsWith("pipeline[0]") ? { explanation: `why ${c.call_site!.slice(-1)}`, answer: 3 } : { answer: 4 }));
    const cfg = JudgeConfig.parse({
      provider,
      pipeline: [
        { layer: { unit: { type: "judge", name: "j", explanation: true }, repeat: 2 } },
        { type: "judge", name: "k", prompt: "A: {{previous.explanation}}" },
        { type: "judge", name: "m", prompt: "B: {{previous.j.answer}} / {{previous.k.answer}}" },
      ],
    });
    await runCompoundJudge(cfg, sample, h.ports);
    expect(h.calls[2]!.user).toContain("A: [j[0]] why 0\n[j[1]] why 1");
    expect(h.calls[3]!.user).toContain("B: [j[0]] 3\n[j[1]] 3 / 4");
  });

  it("pairwise without options needs a reference: refused before any call, saying why", () => {
    const v = validateJudge(JudgeConfig.parse({ provider, type: "pairwise" }), sample);
    expect(v).toEqual({ issues: [{ path: "config", message: "pairwise compares the output with {{reference}} unless options are given, and this request has no reference" }] });
  });

  it("the config's metric names the score in the outcome", async () => {
    const h = judgePorts(() => ({ answer: 7 }));
    const r = await runCompoundJudge(JudgeConfig.parse({ provider, type: "likert", scale: [1, 10], metric: "requirement-satisfaction" }), sample, h.ports);
    expect(r).toMatchObject({ metric: "requirement-satisfaction", score: 7, pass: true });
  });
});
