import { verdictOf } from "../../../src/pipeline/verdict";
import { describe, expect, it } from "vitest";
import { runPipeline } from "../../../src/pipeline/orchestrator";
import { Question } from "../../../src/schemas/benchmark";
import { ModelConfig } from "../../../src/schemas/model-config";
import { VerificationResult } from "../../../src/schemas/result";
import { type CodeVerifierPort, type CodeVerifyRequest, interpretVerifyReturn } from "../../../src/templates/code-verify";
import { buildJudgeSchema } from "../../../src/templates";
import { scriptedPort } from "../../support/scripted-port";

const answering = ModelConfig.parse({ id: "ans", interface: "openai_compatible", model_name: "m-ans", base_url: "http://x/v1" });
const parsing = ModelConfig.parse({ id: "judge", interface: "openai_compatible", model_name: "m-judge", base_url: "http://x/v1" });
const clock = () => ({ now: () => 1_000 });

function question(template: Record<string, unknown> = {}) {
  return Question.parse({
    id: "q1",
    question: "Which gene?",
    template: {
      fields: [{ name: "gene", type: "str", description: "The gene named", ground_truth: "BCL2" }],
      custom_verify: { language: "javascript", source: "function verify(a, gt) { return a.gene === gt.gene; }" },
      ...template,
    },
  });
}

async function run(port: CodeVerifierPort | undefined, q = question(), answer = "It is BCL2.") {
  const { result } = await runPipeline(
    {
      run_id: "run-1",
      run_name: null,
      question: q,
      answering,
      parsing,
      replicate: 1,
      settings: { evaluation_mode: "template_only", include_extraction_hints: false },
    },
    {
      answerer: scriptedPort({ chat: () => answer }),
      judge: scriptedPort({ structured: () => ({ gene: "BCL2" }) }),
      clock: clock(),
      codeVerifier: port,
    },
  );
  expect(VerificationResult.parse(result)).toEqual(result);
  return result;
}

const fixed = (outcome: Awaited<ReturnType<CodeVerifierPort["verify"]>>, seen: CodeVerifyRequest[] = []): CodeVerifierPort => ({
  verify: async (req) => (seen.push(req), outcome),
});

describe("VerifyTemplate with custom_verify", () => {
  it("gives the port the source, the judge's fields, the ground truth and the raw answer, and records its verdict", async () => {
    const seen: CodeVerifyRequest[] = [];
    const result = await run(fixed({ ok: true, verify_result: true, verify_granular_result: 0.75, field_results: { gene: true } }, seen));
    expect(seen).toEqual([
      {
        language: "javascript",
        source: "function verify(a, gt) { return a.gene === gt.gene; }",
        parsed: { gene: "BCL2" },
        ground_truth: { gene: "BCL2" },
        raw_trace: "It is BCL2.",
      },
    ]);
    expect(result.template).toMatchObject({
      verify_result: true,
      verify_granular_result: 0.75,
      field_results: { gene: true },
      composition_strategy: "custom_verify",
      field_verification_error: null,
    });
    expect(result.metadata.failure).toBeNull();
  });

  it("records an error (verify_result null, template_validation, group system), never a wrong answer or a crash, when the code fails", async () => {
    const result = await run(fixed({ ok: false, error: "verify threw: TypeError: x is undefined" }));
    expect(result.template).toMatchObject({
      verify_result: null,
      field_verification_error: "Custom verify failed: verify threw: TypeError: x is undefined",
    });
    expect(result.metadata.failure).toMatchObject({
      category: "template_validation",
      group: "system",
      reason: expect.stringContaining("verify threw"),
    });
    expect(verdictOf(result)).toBe("error");
  });

  it("records an error when there is no code verifier, or the port itself throws", async () => {
    const none = await run(undefined);
    expect(none.template).toMatchObject({
      verify_result: null,
      field_verification_error: expect.stringMatching(/not available: no code verifier/),
    });
    const throwing = await run({
      verify: async () => {
        throw new Error("boom");
      },
    });
    expect(throwing.template).toMatchObject({
      verify_result: null,
      field_verification_error: expect.stringMatching(/code verifier failed: boom/),
    });
    expect(throwing.metadata.failure).toMatchObject({ category: "template_validation", group: "system" });
  });

  it("ANDs the regex checks with the code's verdict", async () => {
    const q = question({ regex: [{ name: "nct", pattern: "NCT\\d{8}", expected: 1, match_type: "count" }] });
    const result = await run(fixed({ ok: true, verify_result: true, verify_granular_result: null, field_results: null }), q);
    expect(result.template).toMatchObject({ verify_result: false, regex_overall_success: false, field_results: {} });
  });

  it("shows the judge every field of a custom_verify template, still without the ground truth", () => {
    const { jsonSchema } = buildJudgeSchema(question().template!);
    expect(Object.keys(jsonSchema.properties as object)).toEqual(["gene"]);
    expect(JSON.stringify(jsonSchema)).not.toContain("BCL2");
  });
});

describe("interpretVerifyReturn (the contract every language shares)", () => {
  it("accepts a boolean", () => {
    expect(interpretVerifyReturn(false)).toEqual({ ok: true, verify_result: false, verify_granular_result: null, field_results: null });
  });
  it("accepts the object form with granular score and field results", () => {
    expect(interpretVerifyReturn({ verify_result: true, verify_granular_result: 0.5, field_results: { a: true, b: null } })).toEqual({
      ok: true,
      verify_result: true,
      verify_granular_result: 0.5,
      field_results: { a: true, b: null },
    });
  });
  it.each<[string, unknown, RegExp]>([
    ["undefined (no return)", undefined, /it returned undefined \(nothing\)/],
    ["a number", 1, /it returned a number 1/],
    ["a string", "yes", /it returned a string "yes"/],
    ["null", null, /it returned null/],
    ["an array", [true], /it returned an array \[true\]/],
    ["an object without verify_result", { ok: true }, /unknown keys: ok/],
    ["a non-boolean verify_result", { verify_result: "true" }, /its verify_result is a string "true"/],
    ["a granular score above 1", { verify_result: true, verify_granular_result: 2 }, /from 0 to 1; it is a number 2/],
    ["a field result that is not a boolean", { verify_result: true, field_results: { a: 1 } }, /field "a" is a number 1/],
    ["field_results that is not an object", { verify_result: true, field_results: [true] }, /it is not an object/],
  ])("refuses %s, naming what came back", (_, value, message) => {
    const out = interpretVerifyReturn(value);
    expect(out.ok).toBe(false);
    expect(!out.ok && out.error).toMatch(message);
  });
});
