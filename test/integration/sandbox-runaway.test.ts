/**
 * Issue 16 (b): runaway JavaScript ends within the sandbox's work budgets, inside workerd, with a
 * frozen clock (as on the edge, where Date.now() stands still during CPU work) and the DEFAULT
 * limits, as a custom verify and as a callable trait; the message says what stopped it. Before the
 * builtin work budget, "builtin-heavy loop (fill)" ran 23.7 s and ended on a clock that only moves
 * locally; remove the prelude from quickjs.ts and the builtin rows here stop on nothing.
 */
import { describe, expect, it } from "vitest";
import { createCodeVerifier } from "../../src/adapters/code-verifier";
import { createCallableTraitRunner } from "../../src/adapters/rubric-callable";
import { runPipeline } from "../../src/pipeline/orchestrator";
import { verdictOf } from "../../src/pipeline/verdict";
import { Question } from "../../src/schemas/benchmark";
import { ModelConfig } from "../../src/schemas/model-config";
import { RUNAWAY_PROGRAMS } from "../fixtures/runaway-programs";
import { scriptedPort } from "../support/scripted-port";

const frozen = { now: () => 1_700_000_000_000 };
const verifier = createCodeVerifier({ javascript: { clock: frozen } });
const traits = createCallableTraitRunner({ clock: frozen });

describe("the runaway corpus", () => {
  it("has at least 10 programs", () => expect(RUNAWAY_PROGRAMS.length).toBeGreaterThanOrEqual(10));

  it.each(RUNAWAY_PROGRAMS)("$name: a custom verify ends with the cause named", async ({ body, stop }) => {
    const out = await verifier.verify({
      language: "javascript",
      source: `function verify(answer, gt, context) { ${body} }`,
      parsed: {},
      ground_truth: {},
      raw_trace: "x",
    });
    expect(out.ok).toBe(false);
    expect(out.ok ? "" : out.error).toMatch(stop);
  });

  it.each(RUNAWAY_PROGRAMS)("$name: a callable trait ends with the cause named", async ({ body, stop }) => {
    const out = await traits.run({ trait: "runaway", source: `function evaluate(text) { ${body} }`, text: "x" });
    expect(out.ok).toBe(false);
    expect(out.ok ? "" : out.error).toMatch(stop);
  });
});

describe("a runaway verify among other jobs", () => {
  const model = (id: string) => ModelConfig.parse({ id, interface: "openai_compatible", model_name: id, base_url: "http://x/v1" });
  const grade = (id: string, source: string) =>
    runPipeline(
      {
        run_id: "run-runaway",
        run_name: null,
        question: Question.parse({
          id,
          question: "Which gene?",
          template: {
            fields: [{ name: "gene", type: "str", description: "the gene", ground_truth: "BCL2" }],
            custom_verify: { language: "javascript", source },
          },
        }),
        answering: model("ans"),
        parsing: model("judge"),
        replicate: 1,
        settings: { evaluation_mode: "template_only", include_extraction_hints: false },
      },
      {
        answerer: scriptedPort({ chat: () => "BCL2." }),
        judge: scriptedPort({ structured: () => ({ gene: "BCL2" }) }),
        clock: frozen,
        codeVerifier: verifier,
      },
    );

  it("gives that job the verdict error and lets the jobs of the same batch finish with their own verdicts", async () => {
    const ok = "function verify(answer, gt) { return answer.gene === gt.gene; }";
    const results = await Promise.all([
      grade("before", ok),
      grade("runaway", "function verify() { for (;;) { new Array(1e6).fill(1); } }"),
      grade("after", ok),
    ]);
    expect(results.map(({ result }) => verdictOf(result))).toEqual(["pass", "error", "pass"]);
    expect(results[1]!.result.metadata.failure).toMatchObject({ category: "template_validation", group: "system" });
    expect(results[1]!.result.template!.field_verification_error).toMatch(/builtin calls touched more than 20000000 elements/);
  });
});
