import { describe, expect, it } from "vitest";
import { verdictOf } from "../../../src/pipeline/verdict";
import type { VerificationResult } from "../../../src/schemas/result";

function result(failure: { group: string } | null, verify_result: boolean | null, evaluation_mode = "template_only") {
  return { metadata: { failure, evaluation_mode }, template: { verify_result } } as unknown as VerificationResult;
}

describe("verdictOf", () => {
  it("passes only a result with no failure and verify_result true", () => {
    expect(verdictOf(result(null, true))).toBe("pass");
  });
  it("counts a judge or transport failure as error, never as fail", () => {
    expect(verdictOf(result({ group: "retry" }, null))).toBe("error");
    expect(verdictOf(result({ group: "system" }, null))).toBe("error");
  });
  it("counts content, autofail and abstained failures as fail", () => {
    for (const group of ["content", "autofail", "abstained"]) expect(verdictOf(result({ group }, false))).toBe("fail");
  });
  it("gives a rubric_only result no verdict instead of an invented error or pass", () => {
    expect(verdictOf(result(null, null, "rubric_only"))).toBe("no_verdict");
    expect(verdictOf(result(null, null, "template_only"))).toBe("error");
  });
});
