import { describe, expect, it } from "vitest";
import { runPipeline } from "../../src/pipeline/orchestrator";
import { createCodeVerifier } from "../../src/adapters/code-verifier";
import { Question } from "../../src/schemas/benchmark";
import { ModelConfig } from "../../src/schemas/model-config";
import { scriptedPort } from "../support/scripted-port";

const model = (id: string) => ModelConfig.parse({ id, interface: "openai_compatible", model_name: id, base_url: "http://x/v1" });
/** As on the edge, the clock never moves during the guest's CPU work. */
const frozen = { now: () => 1_700_000_000_000 };
const codeVerifier = createCodeVerifier({ javascript: { clock: frozen, limits: { memoryBytes: 4 * 1024 * 1024, maxInterrupts: 2_000 } } });

async function grade(source: string) {
  const question = Question.parse({
    id: "q1",
    question: "Which gene?",
    template: {
      fields: [{ name: "gene", type: "str", description: "The gene named", ground_truth: "BCL2" }],
      custom_verify: { language: "javascript", source },
    },
  });
  const { result } = await runPipeline(
    {
      run_id: "run-sandbox",
      run_name: null,
      question,
      answering: model("ans"),
      parsing: model("judge"),
      replicate: 1,
      settings: { evaluation_mode: "template_only", include_extraction_hints: false },
    },
    {
      answerer: scriptedPort({ chat: () => "BCL2." }),
      judge: scriptedPort({ structured: () => ({ gene: "BCL2" }) }),
      clock: frozen,
      codeVerifier,
    },
  );
  return result;
}

const ok = "function verify(answer, gt) { return answer.gene === gt.gene; }";

describe("the pipeline with runaway custom verify code, inside workerd", () => {
  it("records an infinite loop as an error (verify_result null, template_validation, group system), then grades the next answer normally", async () => {
    const result = await grade("function verify() { for (;;) {} }");
    expect(result.metadata.failure).toMatchObject({ category: "template_validation", group: "system", stage: "verify_template" });
    expect(result.template).toMatchObject({
      verify_result: null,
      field_verification_error: "Custom verify failed: stopped: it ran past 2000 interrupt checks (runaway loop?)",
    });
    expect((await grade(ok)).template).toMatchObject({ verify_result: true, field_verification_error: null });
  });

  it("records unbounded allocation as an error with field_verification_error, then grades the next answer normally", async () => {
    const result = await grade("function verify() { const xs = []; for (let i = 0; ; i++) xs[i] = { i, s: 'x' + i }; }");
    expect(result.metadata.failure).toMatchObject({ category: "template_validation", group: "system" });
    expect(result.template).toMatchObject({
      verify_result: null,
      field_verification_error: "Custom verify failed: verify ran out of memory (cap 4 MB)",
    });
    expect((await grade(ok)).template).toMatchObject({ verify_result: true, field_verification_error: null });
  });
});
