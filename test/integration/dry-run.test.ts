import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { addFakeRules, api, fakeModel, fakeStats, submitRun, uniqueModel, waitForRun } from "./helpers";

const FIELDS = ["gene", "organism", "method", "year_known"];
const template = {
  fields: FIELDS.map((name) => ({
    name,
    type: "str",
    description: `The ${name.replace("_", " ")} the response names`,
    ground_truth: "x",
    verify_with: { type: "ExactMatch" },
  })),
};
// ~150 tokens (the estimator's assumed answer length), varied prose as a model writes it; each
// field's excerpt is a verbatim span of it (a repeated text would defeat difflib's autojunk seed).
const ANSWER =
  "The study reports the TP53 gene in Mus musculus, measured by CRISPR knockout screening, and the effect was first described in 1979. " +
  "Authors at the Sanger Institute confirmed it with Western blots, quantitative PCR and flow cytometry on primary fibroblasts. " +
  "They argue the pathway explains why tumours evade apoptosis; reviewers noted a small cohort (n=42) and asked for replication. " +
  "Funding came from Wellcome; data are deposited in GEO under accession GSE12345, with code on GitHub for reuse by others.";
const SPANS: Record<string, string> = {
  gene: "the TP53 gene",
  organism: "in Mus musculus",
  method: "measured by CRISPR knockout screening",
  year_known: "first described in 1979",
};

function body(answering: string, judge: string, questions: number, extra: Record<string, unknown> = {}) {
  return {
    run_name: `dry-${answering}`,
    benchmark: {
      name: "dry",
      questions: Array.from({ length: questions }, (_, i) => ({
        id: `q${i}`,
        question: `Which gene, organism, method and year does study ${i} report?`,
        template,
      })),
    },
    config: {
      answering_models: [fakeModel("ans", answering)],
      parsing_models: [fakeModel("judge", judge)],
      replicate_count: 2,
      abstention_enabled: true,
      deep_judgment_mode: "full",
    },
    prices: { [answering]: { input_per_mtok: 1, output_per_mtok: 4 }, [judge]: { input_per_mtok: 2, output_per_mtok: 8 } },
    ...extra,
  };
}

describe("POST /v1/runs with dry_run", () => {
  it("answers 200 with an estimate per stage, writes no run and calls no model", async () => {
    const ans = uniqueModel("dry-ans");
    const judge = uniqueModel("dry-judge");
    const res = await api("/v1/runs", { method: "POST", json: body(ans, judge, 3, { dry_run: true }) });
    expect(res.status).toBe(200);
    const { estimate } = (await res.json()) as any;
    // 3 questions × 2 replicates × (answer + abstention + excerpts + reasoning + parse)
    expect(estimate.calls).toBe(30);
    expect(estimate.per_stage.answer_generation.calls).toBe(6);
    expect(estimate.per_stage.deep_judgment_excerpts).toMatchObject({ calls: 6, calls_max: 18 }); // 2 excerpt retries each at most
    expect(estimate.per_stage.parsing.calls).toBe(6);
    expect(estimate.cost_usd).toBeCloseTo(
      (estimate.per_model[`answering:ans`].input_tokens * 1 +
        estimate.per_model[`answering:ans`].output_tokens * 4 +
        estimate.per_model[`judging:judge`].input_tokens * 2 +
        estimate.per_model[`judging:judge`].output_tokens * 8) /
        1e6,
      12,
    );
    expect(estimate.prices_as_of).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((await fakeStats(ans)).total + (await fakeStats(judge)).total).toBe(0);
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM runs WHERE run_name = ?").bind(`dry-${ans}`).first<{ n: number }>();
    expect(rows?.n).toBe(0);
  });

  it("estimates calls within 10 % and tokens within 25 % of the real run (abstention, deep judgment full, four fields, 10 % 429s)", async () => {
    const ans = uniqueModel("acc-ans");
    const judge = uniqueModel("acc-judge");
    const questions = 8;
    const dry = (await (await api("/v1/runs", { method: "POST", json: body(ans, judge, questions, { dry_run: true }) })).json()) as any;
    const est = dry.estimate;
    expect(est.calls).toBe(questions * 2 * 5);

    // 10 % of the calls are refused with a 429 first (they return no tokens, so they are not billed).
    const answer429 = 2;
    const judge429 = 6;
    await addFakeRules([
      { match: { model: ans }, reply: { fault: "429" }, times: answer429 },
      { match: { model: judge }, reply: { fault: "429" }, times: judge429 },
      { match: { model: ans }, reply: { text: ANSWER } },
      {
        match: { model: judge, contains: "explicit declaration of non-answering" },
        reply: {
          json: {
            reasoning: "The response answers directly and does not decline; no refusal wording appears.",
            abstention_detected: false,
          },
        },
      },
      {
        match: { model: judge, contains: "<response_to_analyze>" },
        reply: {
          json: Object.fromEntries(
            FIELDS.map((f) => [f, [{ text: SPANS[f], confidence: "high", explanation: "the response states it in these words" }]]),
          ),
        },
      },
      {
        match: { model: judge, contains: "<extracted_excerpts>" },
        reply: {
          json: Object.fromEntries(
            FIELDS.map((f) => [
              f,
              `The excerpt "${SPANS[f]}" is the only evidence for ${f}; it is stated verbatim and with high confidence, so the value follows from it.`,
            ]),
          ),
        },
      },
    ]);
    const runId = await submitRun(body(ans, judge, questions));
    await waitForRun(runId, ["completed", "partial", "failed"], 28_000);
    const view = (await (await api(`/v1/runs/${runId}`)).json()) as any;
    const billed = (await fakeStats(ans)).total + (await fakeStats(judge)).total - answer429 - judge429;
    const real = view.usage.total;
    const ratio = {
      calls: est.calls / billed,
      input: est.input_tokens / real.input_tokens,
      output: est.output_tokens / real.output_tokens,
    };
    console.log(
      JSON.stringify({
        estimate: { calls: est.calls, input: est.input_tokens, output: est.output_tokens },
        real: { calls: billed, input: real.input_tokens, output: real.output_tokens },
        ratio,
      }),
    );
    expect(Math.abs(ratio.calls - 1)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(ratio.input - 1)).toBeLessThanOrEqual(0.25);
    expect(Math.abs(ratio.output - 1)).toBeLessThanOrEqual(0.25);
    expect(Math.abs(est.input_tokens + est.output_tokens - real.total_tokens) / real.total_tokens).toBeLessThanOrEqual(0.25);
  });
});
