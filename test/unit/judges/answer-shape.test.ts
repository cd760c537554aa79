import { describe, expect, it } from "vitest";
import { buildGraph } from "../../../src/judges";
import { answerShape } from "../../../src/judges/prompts";
import { JudgeConfig } from "../../../src/schemas/judge";
import { testModel } from "../../support/judge-port";

const provider = testModel("main");
function node(config: object) {
  const built = buildGraph(JudgeConfig.parse({ provider, ...config }));
  if ("issues" in built) throw new Error(JSON.stringify(built.issues));
  return built.graph.nodes[0]!;
}
const accepts = (config: object, answer: object) => answerShape(node(config)).schema.safeParse(answer).success;

describe("answer shapes (kept per isolate by what decides them)", () => {
  it("hands the same shape to units that ask for the same answer, built once", () => {
    const a = answerShape(node({ type: "likert" }));
    expect(answerShape(node({ type: "likert", prompt: "another prompt" }))).toBe(a);
    expect(answerShape(node({ type: "likert", explanation: true }))).not.toBe(a);
  });

  it("never answers one scale with another's shape: values, their types, ends and options all count", () => {
    // each pair first builds one shape, then asks for a shape that differs in one thing only
    expect(accepts({ type: "judge", scale: { type: "discrete", values: [1, 2, 3] } }, { answer: 3 })).toBe(true);
    expect(accepts({ type: "judge", scale: { type: "discrete", values: [1, 2] } }, { answer: 3 })).toBe(false);
    expect(accepts({ type: "judge", scale: { type: "continuous", min: 0, max: 1 } }, { answer: 0.5 })).toBe(true);
    expect(accepts({ type: "judge", scale: { type: "continuous", min: 0, max: 0.25 } }, { answer: 0.5 })).toBe(false);
    expect(answerShape(node({ type: "judge", scale: ["1", "2"] })).jsonSchema).toMatchObject({
      properties: { answer: { type: "string", enum: ["1", "2"] } },
    });
    expect(answerShape(node({ type: "judge", scale: [1, 2] })).jsonSchema).toMatchObject({
      properties: { answer: { type: "integer", enum: [1, 2] } },
    });
    const worstLast = answerShape(node({ type: "judge", scale: { type: "likert", end_is_worst: true } })).schema.safeParse({ answer: 9 });
    const worstFirst = answerShape(node({ type: "judge", scale: { type: "likert" } })).schema.safeParse({ answer: 9 });
    expect(worstLast.error!.issues[0]!.message).toContain("where 5 is the worst");
    expect(worstFirst.error!.issues[0]!.message).toContain("where 1 is the worst");
    expect(accepts({ type: "categorical", categories: ["a", "b", "c"] }, { answer: "c" })).toBe(true);
    expect(accepts({ type: "categorical", categories: ["a", "b"] }, { answer: "c" })).toBe(false);
  });
});
