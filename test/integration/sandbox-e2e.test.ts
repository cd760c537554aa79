import { describe, expect, it } from "vitest";
import { addFakeRules, allResults, fakeModel, submitRun, uniqueModel, waitForRun } from "./helpers";

const geneField = { name: "gene", type: "str", description: "The gene the answer names", ground_truth: "BCL2" };

const JS_OBJECT_FORM = `
function verify(answer, gt, context) {
  const gene = answer.gene !== null && answer.gene.toUpperCase() === gt.gene;
  const cited = context.raw_trace.includes("PMID");
  return { verify_result: gene && cited, verify_granular_result: (gene + cited) / 2, field_results: { gene } };
}`;

const PYTHON_CLASSIC = [
  "from karenina.schemas.entities import BaseAnswer",
  "from pydantic import Field",
  "class Answer(BaseAnswer):",
  '    gene: str = Field(description="The gene the answer names")',
  "    def model_post_init(self, __context):",
  '        self.correct = {"gene": "BCL2"}',
  "    def verify(self) -> bool:",
  '        return self.gene.upper() == self.correct["gene"]',
  "",
].join("\n");

describe("custom_verify through the real queue", () => {
  it("grades with the template's code: JavaScript object form, a JavaScript throw, and Python", async () => {
    const answerer = uniqueModel("cv-answer");
    const judge = uniqueModel("cv-judge");
    await addFakeRules([
      { match: { model: answerer, contains: "cited" }, reply: { text: "GENE<bcl2> (PMID 123)" } },
      { match: { model: answerer }, reply: { text: "GENE<bcl2>" } },
      { match: { model: judge, contains: "GENE<bcl2>" }, reply: { json: { gene: "bcl2" } } },
    ]);
    const template = (custom_verify: unknown) => ({ fields: [geneField], custom_verify });
    const runId = await submitRun({
      run_name: "custom-verify",
      benchmark: {
        name: "custom-verify",
        questions: [
          { id: "q-js", question: "Which gene, cited?", template: template({ language: "javascript", source: JS_OBJECT_FORM }) },
          { id: "q-js-partial", question: "Which gene?", template: template({ language: "javascript", source: JS_OBJECT_FORM }) },
          {
            id: "q-js-throws",
            question: "Which gene again?",
            template: template({ language: "javascript", source: "function verify(a) { return a.nope.length > 0; }" }),
          },
          { id: "q-py", question: "Which gene in Python?", template: template({ language: "python", source: PYTHON_CLASSIC }) },
        ],
      },
      config: { answering_models: [fakeModel("ans", answerer)], parsing_models: [fakeModel("judge", judge)] },
    });

    const view = await waitForRun(runId);
    expect(view.status).toBe("completed");
    expect(view.summary[0]).toMatchObject({ total: 4, passed: 2, failed: 1, errored: 1 });
    const byId = Object.fromEntries((await allResults(runId)).map((r) => [r.metadata.question_id, r]));

    expect(byId["q-js"].template).toMatchObject({
      verify_result: true,
      verify_granular_result: 1,
      field_results: { gene: true },
      field_verification_error: null,
      composition_strategy: "custom_verify",
    });
    expect(byId["q-js-partial"].template).toMatchObject({
      verify_result: false,
      verify_granular_result: 0.5,
      field_verification_error: null,
    });
    // Code that throws says nothing about the answer: an error (Karenina records false here).
    expect(byId["q-js-throws"].template).toMatchObject({
      verify_result: null,
      field_verification_error: expect.stringMatching(/^Custom verify failed: verify threw: TypeError/),
    });
    expect(byId["q-js-throws"].metadata.failure).toMatchObject({
      category: "template_validation",
      group: "system",
      stage: "verify_template",
    });
    expect(byId["q-py"].template).toMatchObject({ verify_result: true, field_verification_error: null });
  });
});
