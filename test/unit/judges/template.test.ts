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
      { raw: "{{output}}", kind: "output" },
      { raw: "{{ input }}", kind: "input" },
      { raw: "{{reference}}", kind: "reference" },
      { raw: "{{vars.a}}", kind: "vars", name: "a" },
      { raw: "{{previous.explanation}}", kind: "previous", field: "explanation" },
      { raw: "{{previous.j.answer}}", kind: "previous", field: "answer", unit: "j" },
    ]);
    expect(refsOf("{{previous.mood}} {{answer}}").errors).toEqual([
      "{{previous.mood}}: previous fields are explanation, answer, value, text, chosen, ranking (or Verdict's score, choice, thinking, response)",
      "unknown placeholder {{answer}}; use {{output}}, {{input}}, {{reference}}, {{vars.NAME}} or {{previous[.UNIT].FIELD}}",
    ]);
  });

  it("{{previous.FIELD}} joins several inputs by name; {{previous.NAME.FIELD}} reaches every repeat of a named ancestor", async () => {
    const h = judgePorts((c) =>
      c.call_site!.startsWith("pipeline[0]") ? { explanation: `why ${c.call_site!.slice(-1)}`, answer: 3 } : { answer: 4 },
    );
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

  // Verdict's placeholders (verdict/prompt.py:253 formats `(?<!\{)\{([^{}]+?)\}(?!\})` against source, input,
  // previous and unit; docs/concept/prompt.md:55-61 give {previous.score}, {previous.judge.score},
  // {previous.judge[2].explanation}).
  it("reads Verdict's single-brace placeholders: {source.*}, {input.*}, {previous.*} with names and indices, {unit.*}", async () => {
    const h = judgePorts((c) =>
      c.call_site!.startsWith("pipeline[0]")
        ? { explanation: `why ${c.call_site!.slice(-1)}`, answer: 3 + Number(c.call_site!.slice(-1)) }
        : { answer: 4 },
    );
    const cfg = JudgeConfig.parse({
      provider,
      pipeline: [
        {
          layer: {
            unit: {
              type: "judge",
              name: "j",
              explanation: true,
              prompt: "Rate {source.output} about {source.topic} ({unit.name}, {unit.scale})",
            },
            repeat: 3,
          },
        },
        {
          type: "judge",
          name: "k",
          prompt:
            'Q {input.input}; first {previous.j[0].explanation}, last {{previous.j[-1].score}}, all {previous.score}; JSON {"a": {b}}',
        },
      ],
    });
    const r = await runCompoundJudge(cfg, { input: "the question", output: "out", vars: { topic: "cats" } }, h.ports);
    expect(r.error).toBeUndefined();
    expect(h.calls[0]!.user).toContain("Rate out about cats (j[0], 1, 2, 3, 4, 5)");
    const k = h.calls[3]!.user;
    expect(k).toContain('Q the question; first why 0, last 5, all [j[0]] 3\n[j[1]] 4\n[j[2]] 5; JSON {"a": {b}}');
    // The prompt placed the previous answers itself, so no automatic "Previous judgment" block is added.
    expect(k).not.toContain("Previous judgment");
  });

  it("only a placeholder that resolves suppresses the automatic previous-judgment block, not the text {{previous", async () => {
    // Before issue 23 any "{{previous" in the prompt dropped the block, so the unit judged without its input.
    const h = judgePorts((c) => (c.call_site!.startsWith("pipeline[0]") ? { answer: 2 } : { answer: 4 }));
    const cfg = JudgeConfig.parse({
      provider,
      pipeline: [
        { type: "judge", name: "j" },
        { type: "judge", prompt: "Templates write {{previous without closing it. Check it." },
      ],
    });
    expect(validateJudge(cfg, sample)).toHaveProperty("graph");
    await runCompoundJudge(cfg, sample, h.ports);
    expect(h.calls[1]!.user).toContain("Previous judgment (j): answer 2");
  });

  it("refuses (400 at the prompt's path) Verdict-looking placeholders that resolve to nothing, before any call", () => {
    const v = (pipeline: unknown[], s = sample) => validateJudge(JudgeConfig.parse({ provider, pipeline }), s);
    const two = (prompt: string) => [{ layer: { unit: { type: "judge", name: "j" }, repeat: 2 } }, { type: "judge", prompt }];
    expect(v(two("{source.x}"))).toEqual({
      issues: [{ path: "pipeline[1].prompt", message: "uses {source.x}, which this request does not give" }],
    });
    expect(v(two("{{previous.q[0].explanation}}"))).toEqual({
      issues: [{ path: "pipeline[1].prompt", message: '{{previous.q[0].explanation}}: no unit "q" runs before this one' }],
    });
    expect(v(two("{previous.j[2].explanation}"))).toEqual({
      issues: [
        {
          path: "pipeline[1].prompt",
          message: '{previous.j[2].explanation}: "j" has 2 instances before this unit (index 0..1, or -1..-2)',
        },
      ],
    });
    expect(v(two("{previous.mood}"))).toMatchObject({
      issues: [{ path: "pipeline[1].prompt", message: expect.stringContaining("previous fields are") }],
    });
    expect(v(two("{unit.role}"))).toEqual({ issues: [{ path: "pipeline[1].prompt", message: "{unit.role}: a judge unit has no role" }] });
    expect(v(two("{unit.colour}"))).toMatchObject({
      issues: [{ path: "pipeline[1].prompt", message: expect.stringContaining("unit fields are") }],
    });
    expect(v(two("{{source.output}"))).toMatchObject({
      issues: [{ path: "pipeline[1].prompt", message: expect.stringContaining("unbalanced braces") }],
    });
    expect(v([{ type: "judge", prompt: "{previous.score}" }])).toMatchObject({
      issues: [{ path: "pipeline[0].prompt", message: "{previous.score} in the first layer: nothing runs before it" }],
    });
    // Other braces stay literal.
    expect(v(two('{x} {"a": 1} {source} {{output}}'))).toHaveProperty("graph");
  });

  it("a var named like an Object member ({{vars.constructor}}, {source.toString}) is given only when the request gives it", async () => {
    // Before 8 Dec `name in vars` found Object.prototype's members: the prompt was accepted and the
    // model read "function Object() { [native code] }" where the var should have been.
    const cfg = JudgeConfig.parse({ provider, type: "judge", prompt: "C={{vars.constructor}} T={source.toString}" });
    expect(validateJudge(cfg, sample)).toEqual({
      issues: [
        { path: "config.prompt", message: "uses {{vars.constructor}}, which this request does not give" },
        { path: "config.prompt", message: "uses {source.toString}, which this request does not give" },
      ],
    });
    const h = judgePorts(() => ({ answer: 3 }));
    await runCompoundJudge(cfg, { ...sample, vars: { constructor: "ctor", toString: "ts" } }, h.ports);
    expect(h.calls[0]!.user).toContain("C=ctor T=ts");
  });

  it("pairwise without options needs a reference: refused before any call, saying why", () => {
    const v = validateJudge(JudgeConfig.parse({ provider, type: "pairwise" }), sample);
    expect(v).toEqual({
      issues: [
        {
          path: "config",
          message: "pairwise compares the output with {{reference}} unless options are given, and this request has no reference",
        },
      ],
    });
  });

  it("the config's metric names the score in the outcome", async () => {
    const h = judgePorts(() => ({ answer: 7 }));
    const r = await runCompoundJudge(
      JudgeConfig.parse({ provider, type: "likert", scale: [1, 10], metric: "requirement-satisfaction" }),
      sample,
      h.ports,
    );
    expect(r).toMatchObject({ metric: "requirement-satisfaction", score: 7, pass: true });
  });
});
