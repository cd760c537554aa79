import { describe, expect, it } from "vitest";
import { conditionalGroundTruthIssues, resolveGroundTruths } from "../../../src/scenarios/conditional-ground-truth";
import { ConditionalGroundTruth } from "../../../src/scenarios/scenario-schema";
import { AnswerTemplate } from "../../../src/templates/template-schema";

const template = AnswerTemplate.parse({
  fields: [
    { name: "stance", type: "str", description: "the stance taken", ground_truth: "firm", verify_with: { type: "ExactMatch" } },
    { name: "count", type: "int", description: "a count", ground_truth: 1, verify_with: { type: "NumericExact" } },
  ],
});

const cgt = {
  stance: ConditionalGroundTruth.parse({
    source: "node_results.probe.parsed.pushed",
    cases: { True: { value: "firm" }, False: { value: "agree", verify_with: { type: "ContainsAny", substrings: ["agree", "yes"] } } },
    default: { value: "unknown" },
  }),
};

const nodeResults = (pushed: unknown) => ({ probe: { verify_result: true, parsed: { pushed }, rubric: {} } });

describe("conditional ground truth", () => {
  it("picks the case by Python's str of the source value, the primitive with it", () => {
    const t = resolveGroundTruths(template, cgt, nodeResults(false));
    expect(t.fields[0]).toMatchObject({
      name: "stance",
      ground_truth: "agree",
      verify_with: { type: "ContainsAny", params: { substrings: ["agree", "yes"] } },
    });
    expect(t.fields[1]).toBe(template.fields[1]);
    expect(resolveGroundTruths(template, cgt, nodeResults(true)).fields[0]).toMatchObject({
      ground_truth: "firm",
      verify_with: { type: "ExactMatch" },
    });
  });

  it("falls back to default when the source reads nothing or matches no case", () => {
    expect(resolveGroundTruths(template, cgt, {}).fields[0]!.ground_truth).toBe("unknown");
    expect(resolveGroundTruths(template, cgt, nodeResults("maybe")).fields[0]!.ground_truth).toBe("unknown");
  });

  it("refuses a field the template lacks and a case that would be an invalid field", () => {
    const bad = {
      nope: cgt.stance,
      count: ConditionalGroundTruth.parse({
        source: "node_results.probe.verify_result",
        cases: { True: { value: "many" } },
        default: { value: 2 },
      }),
    };
    const issues = conditionalGroundTruthIssues(template, bad);
    expect(issues[0]).toEqual({ path: ["nope"], message: 'the question\'s template has no field "nope"; its fields: stance, count' });
    // "many" is no int (the field's rule) and no number NumericExact can compare (the primitive's): both said, at the case.
    expect(issues.slice(1).map((i) => i.path)).toEqual([
      ["count", "cases", "True", "value"],
      ["count", "cases", "True", "value"],
    ]);
  });
});
