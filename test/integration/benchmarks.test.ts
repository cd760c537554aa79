import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import minimal from "../fixtures/karenina/checkpoint_minimal.jsonld?raw";
import multi from "../fixtures/karenina/checkpoint_multi_question.jsonld?raw";
import withResults from "../fixtures/karenina/checkpoint_with_results.jsonld?raw";
import withRubrics from "../fixtures/karenina/checkpoint_with_rubrics.jsonld?raw";
import { addFakeRules, allResults, api, exactTemplate, fakeModel, submitRun, uniqueModel, waitForRun } from "./helpers";

const FIXTURES = { minimal, multi, withResults, withRubrics };

const native = (name: string) => ({
  name,
  questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }],
});

async function count(table: string): Promise<number> {
  return (await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first<{ n: number }>())!.n;
}

describe("/v1/benchmarks", () => {
  it("stores a native benchmark (R2 body, D1 row) and reads it back", async () => {
    const res = await api("/v1/benchmarks", { method: "POST", json: native("stored-1") });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { benchmark_id: string; question_count: number; source: string };
    expect(created).toMatchObject({ question_count: 1, source: "native" });
    expect(await env.BLOBS.head(`t/default/benchmarks/${created.benchmark_id}/benchmark.json`)).not.toBeNull();
    const got = (await (await api(`/v1/benchmarks/${created.benchmark_id}`)).json()) as {
      benchmark: { name: string; questions: unknown[] };
    };
    expect(got.benchmark.name).toBe("stored-1");
    expect(got.benchmark.questions).toHaveLength(1);
  });

  it("refuses a bad benchmark with 400 naming the field, and writes nothing", async () => {
    const before = await count("benchmarks");
    const bad = native("bad");
    (bad.questions[0]!.template.fields[0] as { type: string }).type = "number";
    const res = await api("/v1/benchmarks", { method: "POST", json: bad });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { issues: { path: string }[] } };
    expect(body.error.issues.map((i) => i.path)).toContain("questions[0].template.fields[0].type");
    expect(await count("benchmarks")).toBe(before);
  });

  it("lists newest first with a cursor", async () => {
    for (const n of ["list-a", "list-b", "list-c"]) await api("/v1/benchmarks", { method: "POST", json: native(n) });
    const page1 = (await (await api("/v1/benchmarks?limit=2")).json()) as {
      benchmarks: { name: string; created_at: string }[];
      next_cursor: string;
    };
    expect(page1.benchmarks.map((b) => b.name)).toEqual(["list-c", "list-b"]);
    const page2 = (await (await api(`/v1/benchmarks?limit=2&cursor=${page1.next_cursor}`)).json()) as { benchmarks: { name: string }[] };
    expect(page2.benchmarks[0]!.name).toBe("list-a");
  });

  it("404s an unknown benchmark", async () => {
    expect((await api("/v1/benchmarks/nope")).status).toBe(404);
    expect((await api("/v1/benchmarks/nope/checkpoint")).status).toBe(404);
  });

  it.each(Object.entries(FIXTURES))("imports the %s checkpoint and exports it back to an equal benchmark", async (_name, text) => {
    const res = await api("/v1/benchmarks/import", { method: "POST", body: text, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(201);
    const out = (await res.json()) as { benchmark_id: string; imported: number; warnings: unknown[]; errors: unknown[] };
    expect(out.imported).toBe((JSON.parse(text) as { dataFeedElement: unknown[] }).dataFeedElement.length);
    expect(out.errors).toEqual([]);
    const exported = await api(`/v1/benchmarks/${out.benchmark_id}/checkpoint`);
    expect(exported.headers.get("content-type")).toContain("application/ld+json");
    const again = await api("/v1/benchmarks/import", {
      method: "POST",
      body: await exported.text(),
      headers: { "content-type": "application/json" },
    });
    const againId = ((await again.json()) as { benchmark_id: string }).benchmark_id;
    const a = ((await (await api(`/v1/benchmarks/${out.benchmark_id}`)).json()) as { benchmark: unknown }).benchmark;
    const b = ((await (await api(`/v1/benchmarks/${againId}`)).json()) as { benchmark: unknown }).benchmark;
    expect(b).toEqual(a);
  });

  it("names what a checkpoint cannot carry (a compound trait) in the export's warning headers instead of dropping it silently", async () => {
    const provider = { id: "j", interface: "openai", model_name: "gpt-4o-mini" };
    const body = { ...native("with-compound"), rubric: { compound_traits: [{ name: "jüry", config: { type: "likert", provider } }] } };
    const created = (await (await api("/v1/benchmarks", { method: "POST", json: body })).json()) as { benchmark_id: string };
    const exported = await api(`/v1/benchmarks/${created.benchmark_id}/checkpoint`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get("X-Edgeval-Export-Warnings")).toBe("1");
    expect(JSON.parse(exported.headers.get("X-Edgeval-Export-Warning-Messages")!)).toEqual([
      'the global rubric: compound trait "jüry" has no Karenina checkpoint form (Karenina has no compound judges); not exported',
    ]);
    const plain = await api(
      `/v1/benchmarks/${((await (await api("/v1/benchmarks", { method: "POST", json: native("no-warnings") })).json()) as { benchmark_id: string }).benchmark_id}/checkpoint`,
    );
    expect(plain.headers.get("X-Edgeval-Export-Warnings")).toBeNull();
  });

  it("accepts a checkpoint sent as application/ld+json", async () => {
    const res = await api("/v1/benchmarks/import", { method: "POST", body: minimal, headers: { "content-type": "application/ld+json" } });
    expect(res.status).toBe(201);
  });

  it("refuses a body that is not a checkpoint, naming the field", async () => {
    const res = await api("/v1/benchmarks/import", {
      method: "POST",
      json: { "@type": "DataFeed", name: "x", dataFeedElement: [{ item: {} }] },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { issues: { path: string }[] } };
    expect(body.error.issues.map((i) => i.path)).toContain("dataFeedElement[0].item.text");
  });

  it("names an empty question text at the checkpoint's item.text, writing nothing", async () => {
    // Before 8 Dec: "(imported benchmark) questions[0].question", a path of an object the caller never sent.
    const checkpoint = JSON.parse(minimal) as { dataFeedElement: { item: { text: string } }[] };
    checkpoint.dataFeedElement[0]!.item.text = "";
    const before = await env.DB.prepare("SELECT COUNT(*) AS n FROM benchmarks").first<{ n: number }>();
    const res = await api("/v1/benchmarks/import", { method: "POST", json: checkpoint });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { issues: { path: string; message: string }[] } };
    expect(body.error.issues).toEqual([
      { path: "dataFeedElement[0].item.text", message: expect.stringMatching(/^the question text must not be empty/) },
    ]);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM benchmarks").first<{ n: number }>()).toEqual(before);
  });

  it("names a repeated question at the checkpoint's dataFeedElement, not at an imported benchmark the caller never saw", async () => {
    // Before 8 Dec: path "(imported benchmark) questions[5].id", "first used by questions[0]".
    const checkpoint = JSON.parse(multi) as { dataFeedElement: unknown[] };
    checkpoint.dataFeedElement.push(checkpoint.dataFeedElement[0]);
    const before = await env.DB.prepare("SELECT COUNT(*) AS n FROM benchmarks").first<{ n: number }>();
    const res = await api("/v1/benchmarks/import", { method: "POST", json: checkpoint });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { issues: { path: string; message: string }[] } };
    expect(body.error.issues).toEqual([
      {
        path: "dataFeedElement[5]",
        message: 'duplicate question id "urn:karenina:test:mq001" (first used by dataFeedElement[0]); give each question its own @id',
      },
    ]);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM benchmarks").first<{ n: number }>()).toEqual(before);
  });
});

describe("runs with benchmark_id", () => {
  it("refuses an unknown benchmark_id, and both or neither of benchmark / benchmark_id, at the field", async () => {
    const config = {
      answering_models: [{ id: "m", interface: "manual", manual_answers: { q1: "x" } }],
      parsing_models: [fakeModel("j", "judge")],
    };
    const cases: [unknown, string][] = [
      [{ benchmark_id: "no-such-benchmark", config }, "benchmark_id"],
      [{ config }, "benchmark"],
      [{ benchmark: native("both"), benchmark_id: "x", config }, "benchmark_id"],
    ];
    for (const [body, path] of cases) {
      const res = await api("/v1/runs", { method: "POST", json: body });
      expect(res.status).toBe(400);
      const err = (await res.json()) as { error: { issues: { path: string }[] } };
      expect(err.error.issues.map((i) => i.path)).toEqual([path]);
    }
  });

  it("grades an imported classic checkpoint through the Python subset: right answers pass, wrong ones fail", async () => {
    const imported = await api("/v1/benchmarks/import", { method: "POST", body: multi, headers: { "content-type": "application/json" } });
    const { benchmark_id } = (await imported.json()) as { benchmark_id: string };
    const judge = uniqueModel("kjudge");
    await addFakeRules([
      { match: { model: judge, contains: "RIGHT boiling" }, reply: { json: { temperature: 100 } } },
      { match: { model: judge, contains: "WRONG boiling" }, reply: { json: { temperature: 90 } } },
      { match: { model: judge, contains: "RIGHT colors" }, reply: { json: { colors: ["Red", "Green", "Blue"] } } },
      { match: { model: judge, contains: "WRONG colors" }, reply: { json: { colors: ["red"] } } },
    ]);
    const ids = ["urn:karenina:test:mq001", "urn:karenina:test:mq002"];
    const manual = (tag: string) => ({ [ids[0]!]: `${tag} boiling`, [ids[1]!]: `${tag} colors` });
    const runId = await submitRun({
      benchmark_id,
      config: {
        question_ids: ids,
        answering_models: [
          { id: "right", interface: "manual", manual_answers: manual("RIGHT") },
          { id: "wrong", interface: "manual", manual_answers: manual("WRONG") },
        ],
        parsing_models: [fakeModel("judge", judge)],
      },
    });
    await waitForRun(runId);
    const results = await allResults(runId);
    expect(results).toHaveLength(4);
    for (const r of results) {
      const right = String(r.template.raw_llm_response).startsWith("RIGHT");
      expect(r.template.verify_result, r.template.raw_llm_response).toBe(right);
      expect(r.metadata.failure ?? null).toEqual(right ? null : expect.objectContaining({ category: "content" }));
    }
    for (const r of results) expect(r.template.field_verification_error ?? null).toBeNull();
  });

  it("keeps a question whose template is outside the subset: an import error naming the line, then template_validation in every run", async () => {
    const checkpoint = JSON.parse(minimal) as { dataFeedElement: { item: { hasPart: { text: string } } }[] };
    const src = checkpoint.dataFeedElement[0]!.item.hasPart.text.replace(
      "return self.result",
      "with open('x') as f:\n            pass\n        return self.result",
    );
    checkpoint.dataFeedElement[0]!.item.hasPart.text = src;
    const res = await api("/v1/benchmarks/import", { method: "POST", json: checkpoint });
    expect(res.status).toBe(201);
    const out = (await res.json()) as { benchmark_id: string; imported: number; errors: { question_id: string; message: string }[] };
    expect(out.imported).toBe(1);
    expect(out.errors).toEqual([
      {
        path: "dataFeedElement[0].item.hasPart.text",
        question_id: "urn:karenina:test:q001",
        message: expect.stringMatching(/line 12: with statement is outside the supported Python subset/),
      },
    ]);
    const runId = await submitRun({
      benchmark_id: out.benchmark_id,
      config: {
        answering_models: [{ id: "m", interface: "manual", manual_answers: { "urn:karenina:test:q001": "4" } }],
        parsing_models: [fakeModel("judge", uniqueModel("unused-judge"))],
      },
    });
    await waitForRun(runId);
    const [result] = await allResults(runId);
    expect(result.metadata.failure).toMatchObject({ category: "template_validation" });
    expect(result.template?.verify_result ?? null).not.toBe(true);
  });

  it("ends a runaway Python verify and a memory hog with field_verification_error; the worker keeps serving", async () => {
    const source = (body: string) => `class Answer(BaseAnswer):\n    n: int = Field(description="n")\n    def verify(self):\n${body}`;
    const question = (id: string, body: string) => ({
      id,
      question: `${id}?`,
      template: {
        fields: [{ name: "n", type: "int", description: "n", ground_truth: 1 }],
        custom_verify: { language: "python", source: source(body) },
      },
    });
    const stored = await api("/v1/benchmarks", {
      method: "POST",
      json: {
        name: "hostile-python",
        questions: [
          question("loop", "        while True:\n            pass\n"),
          question("hog", "        keep = []\n        while True:\n            keep.append('x' * 100000)\n"),
        ],
      },
    });
    const { benchmark_id } = (await stored.json()) as { benchmark_id: string };
    const judge = uniqueModel("hostile-judge");
    await addFakeRules([{ match: { model: judge }, reply: { json: { n: 1 } } }]);
    const runId = await submitRun({
      benchmark_id,
      config: {
        answering_models: [{ id: "m", interface: "manual", manual_answers: { loop: "1", hog: "1" } }],
        parsing_models: [fakeModel("judge", judge)],
      },
    });
    await waitForRun(runId);
    const results = await allResults(runId);
    const byQuestion = Object.fromEntries(results.map((r) => [r.metadata.question_id, r.template]));
    expect(byQuestion.loop).toMatchObject({ verify_result: null, field_verification_error: expect.stringMatching(/StepLimitExceeded/) });
    expect(byQuestion.hog).toMatchObject({ verify_result: null, field_verification_error: expect.stringMatching(/MemoryError/) });
    expect((await api("/v1/benchmarks?limit=1")).status).toBe(200);
  });
});
