/**
 * The failure taxonomy end to end, through the real queue, the SDK adapters and the fake LLM
 * server: one result per category reachable with the pipeline as it stands (the retry group
 * included), the retries_used caveat, and a run with every
 * check enabled whose result carries every template and deep_judgment field.
 */
import { describe, expect, it } from "vitest";
import { ResultDeepJudgment, ResultTemplate } from "../../src/schemas/result";
import { addFakeRules, allResults, exactTemplate, fakeModel, submitRun, uniqueModel, waitForRun } from "./helpers";

async function run(questions: unknown[], answerer: string, judge: string, config: Record<string, unknown>) {
  const runId = await submitRun({
    benchmark: { name: "categories", questions },
    config: { answering_models: [fakeModel("answerer", answerer)], parsing_models: [fakeModel("judge", judge)], ...config },
  });
  await waitForRun(runId);
  const results = await allResults(runId);
  return Object.fromEntries(results.map((r) => [r.metadata.question_id, r]));
}

describe("failure categories through the real queue", () => {
  it("content, abstention, sufficiency, template_validation, parsing and unexpected_error", async () => {
    const answerer = uniqueModel("cat-ans");
    const judge = uniqueModel("cat-judge");
    // Each judge reply satisfies every schema the question's judge calls use (extra keys are dropped).
    await addFakeRules([
      { match: { model: answerer, contains: "Q-CONTENT" }, reply: { text: "ANS-LYON: Lyon." } },
      { match: { model: answerer, contains: "Q-ABST" }, reply: { text: "ANS-REFUSE: I cannot answer that." } },
      { match: { model: answerer, contains: "Q-SUFF" }, reply: { text: "ANS-VAGUE: it depends." } },
      { match: { model: answerer, contains: "Q-PARSE" }, reply: { text: "ANS-BROKEN: Paris." } },
      { match: { model: answerer, contains: "Q-ERR" }, reply: { fault: "400" } },
      {
        match: { model: judge, contains: "ANS-LYON" },
        reply: { json: { reasoning: "commits to Lyon", abstention_detected: false, sufficient: true, answer: "Lyon" } },
      },
      {
        match: { model: judge, contains: "ANS-REFUSE" },
        reply: { json: { reasoning: '"I cannot answer that." No answer.', abstention_detected: true } },
      },
      {
        match: { model: judge, contains: "ANS-VAGUE" },
        reply: { json: { reasoning: "answer: nothing maps", abstention_detected: false, sufficient: false } },
      },
      {
        match: { model: judge, contains: "ANS-BROKEN" },
        reply: { json: { reasoning: "ok", abstention_detected: false, sufficient: true, answer: { not: "a string" } } },
      },
    ]);
    const q = (id: string, text: string, template: unknown = exactTemplate("Paris")) => ({
      id,
      question: `${text} What is the capital of France?`,
      template,
    });
    const byId = await run(
      [
        q("content", "Q-CONTENT"),
        q("abstention", "Q-ABST"),
        q("sufficiency", "Q-SUFF"),
        q("parsing", "Q-PARSE"),
        q("unexpected", "Q-ERR"),
        q("no-template", "Q-NONE", null),
      ],
      answerer,
      judge,
      { abstention_enabled: true, sufficiency_enabled: true },
    );
    const failure = (id: string) => byId[id].metadata.failure;
    expect(failure("content")).toMatchObject({ category: "content", group: "content", stage: "verify_template" });
    expect(failure("abstention")).toMatchObject({ category: "abstention", group: "abstained", stage: "abstention_check" });
    expect(failure("sufficiency")).toMatchObject({ category: "sufficiency", group: "abstained", stage: "sufficiency_check" });
    expect(failure("parsing")).toMatchObject({ category: "parsing", group: "system", stage: "parse_template" });
    expect(failure("unexpected")).toMatchObject({ category: "unexpected_error", group: "system", stage: "generate_answer" });
    expect(failure("no-template")).toMatchObject({ category: "template_validation", group: "system", stage: "validate_template" });

    expect(byId.content.template).toMatchObject({ abstention_detected: false, sufficiency_detected: true, verify_result: false });
    expect(byId.abstention.template).toMatchObject({
      abstention_override_applied: true,
      sufficiency_check_performed: false,
      verify_result: false,
    });
    expect(byId.sufficiency.template).toMatchObject({
      sufficiency_detected: false,
      sufficiency_override_applied: true,
      parsed_llm_response: null,
      verify_result: false,
    });
    expect(byId.parsing.template.verify_result).toBeNull(); // the judge failed: no verdict
    for (const id of ["content", "abstention", "sufficiency"]) expect(byId[id].metadata.completed_without_errors).toBe(true);
    for (const id of ["parsing", "unexpected", "no-template"]) expect(byId[id].metadata.completed_without_errors).toBe(false);
  });

  it("deep_judgment: an invented excerpt ends in attributes_without_excerpts and verify_result false", async () => {
    const answerer = uniqueModel("dj-ans");
    const judge = uniqueModel("dj-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris is the capital of France." } },
      {
        match: { model: judge, contains: "expert excerpt extractor" },
        reply: { json: { answer: [{ text: "The capital has been Marseille since 1999", confidence: "high" }] } },
      },
      { match: { model: judge, contains: "expert reasoning generator" }, reply: { json: { answer: "No verbatim support." } } },
      { match: { model: judge, contains: "Parse the following response" }, reply: { json: { answer: "Paris" } } },
    ]);
    const byId = await run([{ id: "dj", question: "What is the capital of France?", template: exactTemplate("Paris") }], answerer, judge, {
      deep_judgment_mode: "full",
    });
    const result = byId.dj;
    expect(result.deep_judgment).toMatchObject({
      deep_judgment_performed: true,
      attributes_without_excerpts: ["answer"],
      deep_judgment_excerpt_retry_count: 2,
    });
    expect(result.template).toMatchObject({ field_results: { answer: true }, verify_result: false });
    expect(result.metadata.failure).toMatchObject({ category: "deep_judgment", group: "autofail", stage: "deep_judgment_autofail" });
  });
});

describe("the retry group and the retries_used caveat", () => {
  it("records rate_limit once the job's deliveries are spent, and retries_used when a retry succeeded", async () => {
    const answerer = uniqueModel("retry-ans");
    const judge = uniqueModel("retry-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "ANSWER: Paris" } },
      { match: { model: judge, contains: "Q-ALWAYS-429" }, reply: { fault: "429" } },
      { match: { model: judge, contains: "Q-ONCE-500" }, reply: { fault: "500" }, times: 1 },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const byId = await run(
      [
        { id: "exhausted", question: "Q-ALWAYS-429 What is the capital of France?", template: exactTemplate("Paris") },
        { id: "recovered", question: "Q-ONCE-500 What is the capital of France?", template: exactTemplate("Paris") },
      ],
      answerer,
      judge,
      {},
    );
    expect(byId.exhausted.metadata.failure).toMatchObject({ category: "rate_limit", group: "retry", stage: "parse_template" });
    expect(byId.exhausted.metadata.caveats).toEqual(["retries_used"]);
    expect(byId.recovered.metadata.failure).toBeNull();
    expect(byId.recovered.template.verify_result).toBe(true);
    expect(byId.recovered.metadata.caveats).toEqual(["retries_used"]);
  });
});

describe("a run with every check enabled", () => {
  it("fills every field of the template and deep_judgment sections, non-null wherever its check ran", async () => {
    const answerer = uniqueModel("all-ans");
    const judge = uniqueModel("all-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris is the capital of France." } },
      {
        match: { model: judge, contains: "abstention detection" },
        reply: { json: { reasoning: "No disclaimer; commits to Paris.", abstention_detected: false } },
      },
      {
        match: { model: judge, contains: "sufficiency classifier" },
        reply: { json: { reasoning: "answer: Paris maps.", sufficient: true } },
      },
      {
        match: { model: judge, contains: "expert excerpt extractor" },
        reply: { json: { answer: [{ text: "Paris is the capital of France", confidence: "high" }] } },
      },
      { match: { model: judge, contains: "expert reasoning generator" }, reply: { json: { answer: "The excerpt names Paris." } } },
      { match: { model: judge, contains: "semantically equivalent", kind: "chat" }, reply: { text: "YES" } },
      { match: { model: judge, contains: "Parse the following response" }, reply: { json: { answer: "Paris, France" } } },
    ]);
    const template = {
      ...exactTemplate("Paris"),
      regex: [{ name: "names_france", pattern: "France", expected: "France", match_type: "exact" }],
    };
    const embeddingModel = uniqueModel("embed");
    const byId = await run([{ id: "all", question: "What is the capital of France?", template }], answerer, judge, {
      abstention_enabled: true,
      sufficiency_enabled: true,
      embedding_check_enabled: true,
      embedding_check_model: embeddingModel,
      embedding_check_threshold: 0.3,
      deep_judgment_mode: "full",
    });
    const { template: t, deep_judgment: dj, metadata } = byId.all;
    // A listed result leaves trace_messages out (GET …/results/:result_id has it).
    expect(Object.keys(t).sort()).toEqual(
      Object.keys(ResultTemplate.shape)
        .filter((k) => k !== "trace_messages")
        .sort(),
    );
    expect(Object.keys(dj).sort()).toEqual(Object.keys(ResultDeepJudgment.shape).sort());
    expect(t).toMatchObject({
      verify_result: true,
      field_results: { answer: false },
      embedding_check_performed: true,
      embedding_override_applied: true,
      embedding_model_used: embeddingModel,
      abstention_check_performed: true,
      abstention_detected: false,
      sufficiency_check_performed: true,
      sufficiency_detected: true,
      regex_validations_performed: true,
      regex_overall_success: true,
    });
    expect(metadata.caveats).toEqual(["embedding_override"]);
    // Null only where nothing applies: no agent (MCP servers, metrics), no verify error, a single
    // field (no composition strategy, no granular score).
    const mayBeNull = new Set([
      "answering_mcp_servers",
      "agent_metrics",
      "field_verification_error",
      "verify_granular_result",
      "composition_strategy",
      // no agentic or dynamic parsing
      "investigation_trace",
      "agentic_extraction_recovery",
      "agentic_extraction_error",
      "dynamic_parse_decision",
      "dynamic_decision_reasoning",
    ]);
    for (const [key, value] of Object.entries(t)) if (!mayBeNull.has(key)) expect(value, key).not.toBeNull();
    for (const [key, value] of Object.entries(dj)) if (key !== "hallucination_risk_assessment") expect(value, key).not.toBeNull(); // search is off
    expect(Object.keys(t.usage_metadata).sort()).toEqual(
      [
        "abstention_check",
        "answer_generation",
        "deep_judgment_excerpts",
        "deep_judgment_reasoning",
        "embedding_check",
        "parsing",
        "sufficiency_check",
        "total",
      ].sort(),
    );
    expect(byId.all.evaluation_input).toBe("Paris is the capital of France.");
  });
});
