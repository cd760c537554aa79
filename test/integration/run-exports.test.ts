/**
 * Exports of examples/basic (issue 21 item 3), through the real queue, R2 and D1: the Karenina
 * export validates against the committed JSON Schema of Karenina's VerificationResult and has the
 * fixture's per-result key sets; CSV is a header plus one row per result with Karenina's columns;
 * NDJSON one line per result; filters apply to every format.
 */
import { Validator } from "@cfworker/json-schema";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import benchmark from "../../examples/basic/benchmark.json";
import config from "../../examples/basic/config.json";
import script from "../../examples/basic/fake-script.json";
import schema from "../../src/exports/karenina-result.schema.json";
import fixture from "../fixtures/karenina/results_export_v2.2_full.json";
import { addFakeRules, api, exactTemplate, fakeModel, requestExport, submitRun, uniqueModel, waitForRun } from "./helpers";

const TOTAL = 12 * 2 * 2; // questions × answering models × replicates

let runId: string;
beforeAll(async () => {
  await addFakeRules(script.rules);
  const at = (models: any[]) => models.map((m) => ({ ...m, base_url: `${env.FAKE_LLM_URL}/v1` }));
  runId = await submitRun({
    benchmark,
    config: { ...config, answering_models: at(config.answering_models), parsing_models: at(config.parsing_models) },
  });
  await waitForRun(runId, ["completed", "partial", "failed"], 60_000);
}, 90_000);

async function built(body: Record<string, unknown>): Promise<{ view: any; text: string; response: Response }> {
  const view = await requestExport(runId, body);
  expect(view.status).toBe("ready");
  const response = await api(view.download_url);
  expect(response.status).toBe(200);
  return { view, text: await response.text(), response };
}

/** RFC 4180 rows (quoted fields may hold commas, quotes and newlines). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += ch;
  }
  expect(cell).toBe(""); // the last row ended with \r\n
  return rows;
}

describe("Karenina export", () => {
  it("validates against Karenina's VerificationResult schema, with the fixture's key sets two levels deep", async () => {
    const { view, text, response } = await built({ format: "karenina" });
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(view).toMatchObject({ format: "karenina", results_done: TOTAL, results_total: TOTAL });
    const doc = JSON.parse(text);
    expect(Object.keys(doc)).toEqual(["format_version", "metadata", "shared_data", "results"]);
    expect(doc.format_version).toBe("2.2");
    expect(Object.keys(doc.metadata.job_summary).sort()).toEqual(Object.keys(fixture.metadata.job_summary).sort());
    expect(doc.metadata.job_summary).toMatchObject({ total_questions: TOTAL, is_complete: true });
    expect(doc.shared_data).toHaveProperty("rubric_definition");
    expect(doc.results).toHaveLength(TOTAL);

    const validator = new Validator(schema as any, "2020-12", false);
    const want = fixture.results[0] as Record<string, any>;
    for (const r of doc.results) {
      const outcome = validator.validate(r);
      expect(
        outcome.errors.filter((x) => x.keyword !== "properties" && x.keyword !== "$ref" && x.keyword !== "anyOf").slice(0, 4),
        r.metadata.result_id,
      ).toEqual([]);
      expect(outcome.valid).toBe(true);
      expect(Object.keys(r).sort()).toEqual(Object.keys(want).sort());
      expect(Object.keys(r.metadata).sort()).toEqual(Object.keys(want.metadata).sort());
      expect(Object.keys(r.template).sort()).toEqual(Object.keys(want.template).sort());
      expect(r.template.trace_messages.length).toBeGreaterThan(0); // the trace comes from R2
    }
  });

  it("the schema check is real: edgeval's own result fails it on the keys Karenina forbids", async () => {
    const page = (await (await api(`/v1/runs/${runId}/results?limit=1`)).json()) as any;
    const outcome = new Validator(schema as any, "2020-12", false).validate(page.results[0]);
    expect(outcome.valid).toBe(false);
    expect(JSON.stringify(outcome.errors)).toContain("completed_without_errors");
  });

  it("is refused on the streaming route with advice naming POST …/exports", async () => {
    const res = await api(`/v1/runs/${runId}/export?format=karenina`);
    expect(res.status).toBe(400);
    const issue = ((await res.json()) as any).error.issues[0];
    expect(issue.path).toBe("query format");
    expect(issue.message).toContain(`POST /v1/runs/${runId}/exports`);
  });
});

describe("CSV and NDJSON", () => {
  it("CSV streams a header with Karenina's columns and one row per result", async () => {
    const res = await api(`/v1/runs/${runId}/export?format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    const rows = parseCsv(await res.text());
    const [header, ...body] = rows;
    expect(header!.slice(0, 4)).toEqual(["question_id", "success", "error", "question_text"]);
    expect(header).toContain("answering_model");
    expect(header).toContain("usage_metadata");
    expect(body).toHaveLength(TOTAL);
    for (const row of body) expect(row).toHaveLength(header!.length);
    const col = (name: string) => header!.indexOf(name);
    expect(new Set(body.map((r) => r[col("answering_model")]))).toEqual(
      new Set(["openai_compatible:edgeval-fake-alpha (alpha)", "openai_compatible:edgeval-fake-beta (beta)"]),
    );
    expect(new Set(body.map((r) => r[col("success")]))).toEqual(new Set(["True", "False"]));
  });

  it("NDJSON streams one result per line, and filters apply", async () => {
    const all = (await (await api(`/v1/runs/${runId}/export?format=ndjson`)).text()).split("\n");
    expect(all.pop()).toBe("");
    expect(all).toHaveLength(TOTAL);
    expect(new Set(all.map((l) => JSON.parse(l).metadata.result_id)).size).toBe(TOTAL);
    const alpha = (await (await api(`/v1/runs/${runId}/export?format=ndjson&answering_model=alpha&verdict=pass`)).text())
      .trim()
      .split("\n");
    expect(alpha.length).toBeGreaterThan(0);
    expect(alpha.length).toBeLessThan(TOTAL / 2 + 1);
    for (const l of alpha)
      expect(JSON.parse(l)).toMatchObject({ metadata: { answering: { config_id: "alpha" } }, template: { verify_result: true } });
    const csv = parseCsv(await (await api(`/v1/runs/${runId}/export?format=csv&answering_model=alpha&verdict=pass`)).text());
    expect(csv).toHaveLength(alpha.length + 1);
    const bad = await api(`/v1/runs/${runId}/export?format=ndjson&answering_model=gamma`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.issues[0].path).toBe("query answering_model");
  });

  it("a built NDJSON export carries each result's trace, and honours its filter", async () => {
    const { text, view } = await built({ format: "ndjson", answering_model: "beta" });
    const lines = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(TOTAL / 2);
    expect(view.results_total).toBe(TOTAL / 2);
    for (const r of lines) {
      expect(r.metadata.answering.config_id).toBe("beta");
      expect(r.template.trace_messages.length).toBeGreaterThan(0);
    }
  });

  it("an export's view and the run's list of exports say which results it holds (its filter, as sent)", async () => {
    const body = { format: "csv", answering_model: "alpha", verdict: "fail", failure_group: "content" };
    const res = await api(`/v1/runs/${runId}/exports`, { method: "POST", json: body });
    expect(res.status).toBe(202);
    const created = (await res.json()) as any;
    expect(created.filter).toEqual({ answering_model: "alpha", verdict: "fail", failure_group: "content" });
    const listed = ((await (await api(`/v1/runs/${runId}/exports?limit=100`)).json()) as any).exports;
    expect(listed.find((e: any) => e.export_id === created.export_id).filter).toEqual(created.filter);
    // An unfiltered export says so with an empty filter: every result of the run.
    const all = (await (await api(`/v1/runs/${runId}/exports`, { method: "POST", json: { format: "csv" } })).json()) as any;
    expect(all.filter).toEqual({});
  });

  it("refuses an unknown format or body key naming it, and a download before ready is a 409", async () => {
    const q = await api(`/v1/runs/${runId}/export?format=xlsx`);
    expect(q.status).toBe(400);
    expect(((await q.json()) as any).error.issues[0].path).toBe("query format");
    const b = await api(`/v1/runs/${runId}/exports`, { method: "POST", json: { format: "karenina", colour: "red" } });
    expect(b.status).toBe(400);
    // a filter naming a model the run lacks is the body's field, as sent (not "query …")
    const unknown = await api(`/v1/runs/${runId}/exports`, { method: "POST", json: { format: "ndjson", answering_model: "gamma" } });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as any).error).toMatchObject({
      code: "invalid_body",
      issues: [{ path: "answering_model", message: expect.stringMatching(/no answering model "gamma"/) }],
    });
    const missing = await api(`/v1/runs/${runId}/exports/00000000-0000-0000-0000-000000000000`);
    expect(missing.status).toBe(404);
  });

  it("a run still going is refused with 409 run_active and writes nothing, not built as a header-only file", async () => {
    const judge = uniqueModel("export-running");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "x" }, latency_ms: 4000 } }]);
    const questions = Array.from({ length: 3 }, (_, i) => ({ id: `q${i}`, question: `Q${i}?`, template: exactTemplate("x") }));
    const running = await submitRun({
      benchmark: { name: "export-running", questions },
      config: {
        answering_models: [{ id: "m", interface: "manual", manual_answers: Object.fromEntries(questions.map((q) => [q.id, "x"])) }],
        parsing_models: [fakeModel("j", judge)],
      },
    });
    for (const format of ["karenina", "csv", "ndjson"]) {
      const res = await api(`/v1/runs/${running}/exports`, { method: "POST", json: { format } });
      expect(res.status).toBe(409);
      const error = ((await res.json()) as any).error;
      expect(error.code).toBe("run_active");
      expect(error.message).toMatch(/once it has finished/);
    }
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM exports WHERE run_id = ?").bind(running).first<{ n: number }>();
    expect(rows?.n).toBe(0);
    await waitForRun(running, ["completed", "partial", "failed"], 30_000);
    expect((await api(`/v1/runs/${running}/exports`, { method: "POST", json: { format: "csv" } })).status).toBe(202);
  }, 45_000);

  it("a run whose end D1 has not mirrored yet is not refused: the coordinator says it has ended", async () => {
    // GET /v1/runs/:id reads the coordinator, which ends the run a moment before it mirrors the status
    // to D1's row: a client that saw the end there must not get 409 run_active in between.
    await env.DB.prepare("UPDATE runs SET status = 'running' WHERE run_id = ?").bind(runId).run();
    try {
      const res = await api(`/v1/runs/${runId}/exports`, {
        method: "POST",
        json: { format: "ndjson", question_id: "q01-venetoclax-target" },
      });
      expect(res.status).toBe(202);
    } finally {
      await env.DB.prepare("UPDATE runs SET status = 'completed' WHERE run_id = ?").bind(runId).run();
    }
  });
});

describe("an export's file name", () => {
  it("differs between exports of one run and carries a hostile run name safely (quotes, CR/LF, non-ASCII)", async () => {
    const [ans, judge] = [uniqueModel("fn-ans"), uniqueModel("fn-judge")];
    await addFakeRules([
      { match: { model: ans }, reply: { text: "Paris" } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const named = await submitRun({
      run_name: 'évals "q"\r\nX-Injected: 1 日本',
      benchmark: { name: "file-names", questions: [{ id: "q", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", ans)], parsing_models: [fakeModel("j", judge)] },
    });
    await waitForRun(named);
    const download = async (url: string) => {
      const res = await api(url);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-injected")).toBeNull();
      return res.headers.get("content-disposition")!;
    };
    const first = await download((await requestExport(named, { format: "csv" })).download_url);
    const second = await download((await requestExport(named, { format: "csv" })).download_url);
    const streamed = await download(`/v1/runs/${named}/export?format=ndjson`);
    expect(second).not.toBe(first);
    expect(new Set([first, second, streamed]).size).toBe(3);
    for (const header of [first, second, streamed]) {
      expect(header).toMatch(/^attachment; filename="[A-Za-z0-9._-]+"; filename\*=UTF-8''[A-Za-z0-9%._~-]+$/);
      expect(decodeURIComponent(/filename\*=UTF-8''(\S+)$/.exec(header)![1]!)).toMatch(
        new RegExp(`^évals-q-X-Injected-1-日本_${named.slice(0, 8)}_\\d{8}T\\d{6}Z(_[0-9a-f]{8})?\\.(csv|ndjson)$`),
      );
    }
  });
});
