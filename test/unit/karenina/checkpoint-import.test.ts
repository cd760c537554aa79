import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { exportCheckpoint } from "../../../src/karenina/export";
import { Checkpoint, importCheckpoint } from "../../../src/karenina/import";
import { runPipeline } from "../../../src/pipeline/orchestrator";
import type { PipelinePorts } from "../../../src/pipeline/types";
import { Benchmark } from "../../../src/schemas/benchmark";
import { ModelConfig } from "../../../src/schemas/model-config";
import type { TemplateField } from "../../../src/templates/template-schema";
import { verifyPython } from "../../../src/templates/python-subset";
import { scriptedPort } from "../../support/scripted-port";

const DIR = path.join(import.meta.dirname, "../../fixtures/karenina");
const FIXTURES = readdirSync(DIR).filter((f) => f.startsWith("checkpoint_") && f.endsWith(".jsonld"));
const load = (f: string) => JSON.parse(readFileSync(path.join(DIR, f), "utf8")) as unknown;
const importFile = (json: unknown) => importCheckpoint(Checkpoint.parse(json));

const answering = ModelConfig.parse({ id: "ans", interface: "manual", manual_answers: {} });
const parsing = ModelConfig.parse({ id: "judge", interface: "openai_compatible", model_name: "m-judge", base_url: "http://x/v1" });
const codeVerifier: PipelinePorts["codeVerifier"] = { verify: async (req) => verifyPython(req) };

/** A value of the field's type that differs from its ground truth. */
function wrong(f: TemplateField): unknown {
  const gt = f.ground_truth;
  switch (f.type) {
    case "bool":
      return !gt;
    case "int":
    case "float":
      return typeof gt === "number" ? gt + 7 : 1;
    case "list_str":
      return ["definitely", "wrong"];
    default:
      return "zzz wrong";
  }
}

async function grade(question: Benchmark["questions"][number], parsed: Record<string, unknown>) {
  let t = 0;
  const { result } = await runPipeline(
    {
      run_id: "run-k",
      run_name: null,
      question,
      answering,
      parsing,
      replicate: 1,
      settings: { evaluation_mode: "template_only", include_extraction_hints: true },
      answer: { ok: true, answer: { raw_llm_response: "an answer", trace_messages: [], usage: null } },
    },
    { answerer: scriptedPort(), judge: scriptedPort({ structured: () => parsed }), clock: { now: () => (t += 10) }, codeVerifier },
  );
  return result;
}

describe("Karenina checkpoint import", () => {
  it("finds the fixture checkpoints", () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(4);
  });

  it.each(FIXTURES)("imports %s: every question, with a template, no errors", (file) => {
    const json = load(file) as { dataFeedElement: unknown[] };
    const { benchmark, errors } = importFile(json);
    expect(errors).toEqual([]);
    const b = Benchmark.parse(benchmark);
    expect(b.questions).toHaveLength(json.dataFeedElement.length);
    for (const q of b.questions) expect(q.template?.custom_verify?.language).toBe("python");
  });

  it.each(FIXTURES)(
    "%s: each question's template passes a correct parsed answer and fails a wrong one, through the pipeline",
    async (file) => {
      const b = Benchmark.parse(importFile(load(file)).benchmark);
      for (const q of b.questions) {
        const fields = q.template!.fields;
        expect(fields.length).toBeGreaterThan(0);
        const right = Object.fromEntries(fields.map((f) => [f.name, f.ground_truth]));
        const bad = Object.fromEntries(fields.map((f) => [f.name, wrong(f)]));
        const pass = await grade(q, right);
        expect(pass.metadata.failure, `${q.id} correct`).toBeNull();
        expect(pass.template?.verify_result, `${q.id} correct`).toBe(true);
        const fail = await grade(q, bad);
        expect(fail.template?.verify_result, `${q.id} wrong`).toBe(false);
        expect(fail.template?.field_verification_error ?? null, `${q.id} wrong`).toBeNull();
        expect(fail.metadata.failure).toMatchObject({ category: "content" });
      }
    },
  );

  it.each(FIXTURES)("%s: import(export(import(f))) deep-equals import(f)", (file) => {
    const first = Benchmark.parse(importFile(load(file)).benchmark);
    const { checkpoint } = exportCheckpoint(first, "bench-1", "2026-01-01T00:00:00Z");
    const again = Benchmark.parse(importFile(JSON.parse(JSON.stringify(checkpoint))).benchmark);
    expect(again).toEqual(first);
  });

  it("maps questions, raw answers, keywords, metadata and fields from the checkpoint", () => {
    const { benchmark } = importFile(load("checkpoint_multi_question.jsonld"));
    const b = Benchmark.parse(benchmark);
    const q = b.questions[1]!;
    expect(q).toMatchObject({
      id: "urn:karenina:test:mq002",
      question: "List three primary colors.",
      raw_answer: "Red, green, and blue",
      keywords: ["art", "colors"],
    });
    expect(q.template!.fields).toEqual([
      { name: "colors", type: "list_str", description: "List of color names", ground_truth: ["red", "green", "blue"], weight: 1 },
    ]);
    expect(b.karenina).toMatchObject({ "@id": "urn:karenina:test:multi-question", version: "0.1.0", creator: "Karenina Test Suite" });
    expect((b.karenina!.questions as Record<string, unknown>)["urn:karenina:test:mq005"]).toMatchObject({
      properties: [{ name: "finished", value: false }],
    });
  });

  it("imports global and question rubric traits of each kind; callable traits become warnings", () => {
    const { benchmark, warnings } = importFile(load("checkpoint_with_rubrics.jsonld"));
    const b = Benchmark.parse(benchmark);
    expect(b.rubric!.llm_traits.map((t) => [t.name, t.kind, t.min_score ?? null, t.max_score ?? null])).toEqual([
      ["Clarity", "score", 1, 5],
      ["Accuracy", "boolean", null, null],
      ["Completeness", "score", 1, 5],
    ]);
    expect(b.rubric!.regex_traits.map((t) => [t.name, t.pattern, t.case_sensitive])).toEqual([
      ["HasCitations", "\\[\\d+\\]", true],
      ["HasNumbers", "\\d+", true],
    ]);
    expect(b.rubric!.callable_traits.map((t) => t.name)).toEqual(["ContainsCitations", "ResponseLength"]);
    const callableWarnings = warnings.filter((w) => /callable traits are pickled Python/.test(w.message));
    expect(callableWarnings).toHaveLength(2);
    expect(callableWarnings[0]!.message).toMatch(/ContainsCitations.*never runs.*will not be evaluated/);
  });

  it("warns about (and skips) traits it cannot keep, naming them", () => {
    const { warnings } = importFile(load("checkpoint_with_results.jsonld"));
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/trait "Conciseness": callable traits are pickled Python.*not imported \(callable_code is required/),
    ]);
    // the field is named once, by the message itself
    expect(warnings[0]!.message).not.toContain("callable_code: callable_code");
  });

  it('a regex trait stored without a pattern (the fixture\'s Citations) loads as Karenina loads it: pattern ""', () => {
    // karenina utils/checkpoint_trait_converters.py:413, `pattern = ""` unless a pattern property is present.
    const { benchmark } = importFile(load("checkpoint_with_results.jsonld"));
    const citations = benchmark.questions
      .flatMap((q) => (q.rubric?.regex_traits ?? []) as { name: string }[])
      .find((t) => t.name === "Citations");
    expect(citations).toMatchObject({ name: "Citations", pattern: "" });
  });
});
