/**
 * Issue 15 items 5 and 6: what a run reports matches what the README documents. An unpriced
 * model costs null (unknown), never 0, in runs, dry runs and /v1/judge, and every sum that
 * includes one of its calls is null; unpriced_models is given per summary pair as well as for
 * the run; the results list leaves `template.trace_messages` out (the single result has it).
 */
import { describe, expect, it } from "vitest";
import pkg from "../../package.json";
import { GUARD_PROMPT_VERSION } from "../../src/pipeline/prompts/guards";
import { PARSING_PROMPT_VERSION } from "../../src/pipeline/prompts/parsing";
import { addFakeRules, api, exactTemplate, fakeModel, submitRun, uniqueModel, waitForRun } from "./helpers";

const QUESTION = { id: "q1", question: "Which gene encodes p53?", template: exactTemplate("TP53") };

async function twoAnswerersOnePricedJudge() {
  const [priced, unpriced, judge] = [uniqueModel("priced"), uniqueModel("unpriced"), uniqueModel("judge")];
  await addFakeRules([
    { match: { model: priced }, reply: { text: "ANSWER<TP53>" } },
    { match: { model: unpriced }, reply: { text: "ANSWER<TP53>" } },
    { match: { model: judge }, reply: { json: { answer: "TP53" } } },
  ]);
  const body = {
    benchmark: { name: "cost", questions: [QUESTION] },
    config: {
      answering_models: [fakeModel("priced", priced), fakeModel("unpriced", unpriced)],
      parsing_models: [fakeModel("judge", judge)],
    },
    prices: { [priced]: { input_per_mtok: 1, output_per_mtok: 2 }, [judge]: { input_per_mtok: 3, output_per_mtok: 4 } },
  };
  return { body, unpricedName: `openai_compatible:${unpriced}` };
}

describe("what a run reports", () => {
  it("an unpriced model's cost is null in the run, its pair and every total that includes it; unpriced_models per pair", async () => {
    const { body, unpricedName } = await twoAnswerersOnePricedJudge();
    const runId = await submitRun(body);
    await waitForRun(runId);
    const view = (await (await api(`/v1/runs/${runId}`)).json()) as any;
    expect(view.status).toBe("completed");
    const pair = (a: string) => view.summary.find((s: any) => s.answering_model === a);

    expect(pair("priced").usage.unpriced_models).toEqual([]);
    expect(pair("priced").usage.total.cost_usd).toEqual(expect.any(Number));
    expect(pair("priced").usage.total.cost_usd).toBeGreaterThan(0);

    expect(pair("unpriced").usage.unpriced_models).toEqual([unpricedName]);
    expect(pair("unpriced").usage.answering.cost_usd).toBeNull();
    expect(pair("unpriced").usage.judging.cost_usd).toBeGreaterThan(0); // its judge is priced
    expect(pair("unpriced").usage.total.cost_usd).toBeNull();
    expect(pair("unpriced").usage.answering.input_tokens).toBeGreaterThan(0); // tokens still count

    expect(view.usage.unpriced_models).toEqual([unpricedName]);
    expect(view.usage.answering.cost_usd).toBeNull();
    expect(view.usage.total.cost_usd).toBeNull();
    expect(view.usage.judging.cost_usd).toBeGreaterThan(0);
  });

  it("a dry run prices an unpriced model's calls as null, and every total with them", async () => {
    const { body, unpricedName } = await twoAnswerersOnePricedJudge();
    const res = await api("/v1/runs", { method: "POST", json: { ...body, dry_run: true } });
    expect(res.status).toBe(200);
    const { estimate } = (await res.json()) as any;
    expect(estimate.unpriced_models).toEqual([unpricedName]);
    expect(estimate.cost_usd).toBeNull();
    expect(estimate.per_model["answering:unpriced"].cost_usd).toBeNull();
    expect(estimate.per_model["answering:priced"].cost_usd).toBeGreaterThan(0);
    expect(estimate.per_model["judging:judge"].cost_usd).toBeGreaterThan(0);
    expect(estimate.per_stage.answer_generation.cost_usd).toBeNull();
  });

  it("/v1/judge with an unpriced model: cost null and the model in unpriced_models", async () => {
    const model = uniqueModel("judge-unpriced");
    await addFakeRules([{ match: { model }, reply: { json: { answer: 4 } } }]);
    const res = await api("/v1/judge", {
      method: "POST",
      json: { output: "x", config: { provider: fakeModel("j", model), type: "likert" } },
    });
    const out = (await res.json()) as any;
    expect(out.usage.cost_usd).toBeNull();
    expect(out.usage.unpriced_models).toEqual([model]);
    expect(out.units[0].usage.unpriced_models).toEqual([model]);
  });

  it("the results list leaves template.trace_messages out; the single result keeps it", async () => {
    const { body } = await twoAnswerersOnePricedJudge();
    const runId = await submitRun(body);
    await waitForRun(runId);
    const page = (await (await api(`/v1/runs/${runId}/results`)).json()) as any;
    expect(page.results).toHaveLength(2);
    for (const r of page.results) {
      expect(r.template).toBeDefined();
      expect("trace_messages" in r.template).toBe(false);
    }
    const one = (await (await api(`/v1/runs/${runId}/results/${page.results[0].metadata.result_id}`)).json()) as any;
    expect(one.template.trace_messages.at(-1)).toEqual({ role: "assistant", content: "ANSWER<TP53>" });
  });
});

describe("a run with many model pairs (issue 15 item 11)", () => {
  it("GET /v1/runs/:id embeds at most 100 pairs and links to the paged summary, which has every pair once", async () => {
    const judge = uniqueModel("pairs-judge");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "TP53" } } }]);
    const answering = Array.from({ length: 12 }, (_, i) => ({ id: `m${i}`, interface: "manual", manual_answers: { q1: "TP53" } }));
    const parsing = Array.from({ length: 10 }, (_, i) => fakeModel(`j${i}`, judge));
    const runId = await submitRun({
      benchmark: { name: "pairs", questions: [QUESTION] },
      config: { answering_models: answering, parsing_models: parsing },
    });

    const view = (await (await api(`/v1/runs/${runId}`)).json()) as any;
    expect(view.summary).toHaveLength(100);
    expect(view.summary_total).toBe(120);
    expect(view.summary_next_url).toMatch(new RegExp(`^/v1/runs/${runId}/summary\\?cursor=`));

    const rest = (await (await api(view.summary_next_url)).json()) as any;
    expect(rest.summary).toHaveLength(20);
    expect(rest.next_cursor).toBeNull();
    const seen = [...view.summary, ...rest.summary].map((s: any) => `${s.answering_model}/${s.parsing_model}`);
    expect(new Set(seen).size).toBe(120);
    expect(seen[0]).toBe("m0/j0");
    expect(seen[119]).toBe("m11/j9");

    // Paging with a smaller limit walks the same pairs in the same order.
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page = (await (await api(`/v1/runs/${runId}/summary?limit=50${cursor ? `&cursor=${cursor}` : ""}`)).json()) as any;
      walked.push(...page.summary.map((s: any) => `${s.answering_model}/${s.parsing_model}`));
      cursor = page.next_cursor;
    } while (cursor);
    expect(walked).toEqual(seen);

    const done = (await waitForRun(runId)) as any;
    expect(done.status).toBe("completed");
    const full = (await (await api(`/v1/runs/${runId}/summary?limit=500`)).json()) as any;
    expect(full.summary.every((s: any) => s.passed === 1)).toBe(true);
  });

  it("a run with few pairs embeds them all and has no next link", async () => {
    const { body } = await twoAnswerersOnePricedJudge();
    const runId = await submitRun(body);
    const view = (await (await api(`/v1/runs/${runId}`)).json()) as any;
    expect(view).toMatchObject({ summary_total: 2, summary_next_url: null });
    expect(view.summary).toHaveLength(2);
    await waitForRun(runId);
  });
});

describe("the run manifest (issue 15 item 12)", () => {
  it("records edgeval's version, the prompt versions the settings use and each provider's reported model", async () => {
    const [answerer, judge] = [uniqueModel("mf-ans"), uniqueModel("mf-judge")];
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "ANSWER<TP53>", model: `${answerer}-2025-01-01` } },
      {
        match: { model: judge, contains: "abstention detection" },
        reply: { json: { reasoning: "commits", abstention_detected: false }, model: `${judge}-snapshot` },
      },
      { match: { model: judge }, reply: { json: { answer: "TP53" }, model: `${judge}-snapshot` } },
    ]);
    const manual = { id: "human", interface: "manual", manual_answers: { q1: "TP53" } };
    const runId = await submitRun({
      benchmark: { name: "manifest", questions: [QUESTION] },
      config: { answering_models: [fakeModel("a", answerer), manual], parsing_models: [fakeModel("j", judge)], abstention_enabled: true },
    });
    await waitForRun(runId);
    const { manifest } = (await (await api(`/v1/runs/${runId}`)).json()) as any;
    expect(manifest.edgeval_version).toBe(pkg.version);
    expect(manifest.prompt_versions).toEqual({ parsing: PARSING_PROMPT_VERSION, guards: GUARD_PROMPT_VERSION });
    expect(manifest.models).toEqual([
      { id: "a", role: "answering", interface: "openai_compatible", model_name: answerer, actual_models: [`${answerer}-2025-01-01`] },
      { id: "human", role: "answering", interface: "manual", model_name: "manual", actual_models: [] },
      { id: "j", role: "parsing", interface: "openai_compatible", model_name: judge, actual_models: [`${judge}-snapshot`] },
    ]);
  });
});
