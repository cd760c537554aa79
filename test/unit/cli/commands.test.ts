/** `edgeval cancel` (issue 24) and `results` over the export routes (issue 21) against a scripted server (the e2e runs them against npm run dev). */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { cancelCommand, importCommand, judgeCommand, keysCommand } from "../../../cli/commands/misc.ts";
import { rescoreCommand } from "../../../cli/commands/rescore.ts";
import { resultsCommand } from "../../../cli/commands/results.ts";
import { runCommand } from "../../../cli/commands/run.ts";
import { judgesCommand } from "../../../cli/commands/judges.ts";
import { readData, writeOutput } from "../../../cli/io.ts";
import { main } from "../../../cli/main.ts";
import { createClient } from "../../../src/client/index.ts";
import { tempDirs } from "../../support/temp-dirs.ts";
import { acceptedR1, acceptedR1With, capture, json, routesFetch, runR1 } from "./scripted-server.ts";

const tempDir = tempDirs();

describe("edgeval cancel", () => {
  it("prints the run as the cancel left it", async () => {
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      expect(`${req.method} ${new URL(req.url).pathname}`).toBe("POST /v1/runs/r1/cancel");
      return json({ run_id: "r1", status: "cancelled", progress: { total: 48, done: 7 } });
    }) as typeof globalThis.fetch;
    const out = capture();
    expect(await cancelCommand(createClient({ url: "http://x", token: "t", fetch }), "r1", out)).toBe(0);
    expect(out.lines).toEqual(["run r1: cancelled, 7/48 results; no model call of it starts from now on"]);
  });

  it("says so when the server is older than the cancel route", async () => {
    const fetch = (async () =>
      json({ error: { code: "not_found", message: "no route POST /v1/runs/r1/cancel" } }, 404)) as typeof globalThis.fetch;
    const err = await cancelCommand(createClient({ url: "http://x", token: "t", fetch }), "r1", capture()).catch((e) => e);
    expect(err.message).toContain("this server cannot cancel runs (it is older than POST /v1/runs/:id/cancel)");
    expect(err.exitCode).toBe(2);
  });
});

describe("edgeval results", () => {
  const tmp = () => path.join(tempDir("edgeval-results-"), "out");

  it("streams csv and ndjson from GET …/export with the filters, writing the bytes as they come", async () => {
    const asked: string[] = [];
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      const url = new URL(req.url);
      asked.push(`${req.method} ${url.pathname}${url.search}`);
      const body =
        url.searchParams.get("format") === "csv" ? "question_id,verify_result\nq1,True\nq2,False\n" : '{"a":1}\n{"a":2}\n{"a":3}\n';
      return new Response(body, { headers: { "content-type": "text/plain" } });
    }) as typeof globalThis.fetch;
    const client = createClient({ url: "http://x", token: "t", fetch });
    const csv = tmp();
    const out = capture();
    expect(await resultsCommand(client, "r1", { format: "csv", output: csv, answeringModel: "alpha", verdict: "fail" }, out)).toBe(0);
    expect(fs.readFileSync(csv, "utf8")).toBe("question_id,verify_result\nq1,True\nq2,False\n");
    expect(out.lines).toEqual([`run r1: a header and 2 lines written to ${csv} (csv)`]);
    const nd = tmp();
    const out2 = capture();
    await resultsCommand(client, "r1", { format: "ndjson", output: nd }, out2);
    expect(out2.lines).toEqual([`run r1: 3 results written to ${nd} (ndjson)`]);
    expect(asked).toEqual(["GET /v1/runs/r1/export?format=csv&answering_model=alpha&verdict=fail", "GET /v1/runs/r1/export?format=ndjson"]);
  });

  it("builds karenina with POST …/exports, polls until ready, then downloads", async () => {
    const asked: string[] = [];
    let polls = 0;
    const view = (status: string) => ({
      export_id: "e1",
      run_id: "r1",
      format: "karenina",
      status,
      results_done: status === "ready" ? 2 : 1,
      results_total: 2,
      error: null,
    });
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      const url = new URL(req.url);
      asked.push(`${req.method} ${url.pathname}${req.method === "POST" ? ` ${await req.text()}` : ""}`);
      if (req.method === "POST") return json(view("building"), 202);
      if (url.pathname.endsWith("/download"))
        return new Response('{"format_version":"2.2","results":[]}', { headers: { "content-type": "application/json" } });
      return json(view(++polls < 2 ? "building" : "ready"));
    }) as typeof globalThis.fetch;
    const file = tmp();
    expect(
      await resultsCommand(
        createClient({ url: "http://x", token: "t", fetch }),
        "r1",
        { format: "karenina", output: file, questionId: "q1", pollMs: 1 },
        capture(),
      ),
    ).toBe(0);
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ format_version: "2.2", results: [] });
    expect(asked).toEqual([
      'POST /v1/runs/r1/exports {"format":"karenina","question_id":"q1"}',
      "GET /v1/runs/r1/exports/e1",
      "GET /v1/runs/r1/exports/e1",
      "GET /v1/runs/r1/exports/e1/download",
    ]);
  });

  it("says so, writing nothing, when the server is older than the export routes", async () => {
    const fetch = (async () =>
      json({ error: { code: "not_found", message: "no route GET /v1/runs/r1/export" } }, 404)) as typeof globalThis.fetch;
    const file = tmp();
    const err = await resultsCommand(
      createClient({ url: "http://x", token: "t", fetch }),
      "r1",
      { format: "csv", output: file },
      capture(),
    ).catch((e) => e);
    expect(err.message).toContain("this server has no results export");
    expect(err.exitCode).toBe(2);
    expect(fs.existsSync(file)).toBe(false);
  });
});

describe("an output file that cannot be written", () => {
  const noRequest = (async () => {
    throw new Error("no request expected");
  }) as typeof globalThis.fetch;

  it("results names the file, before any request", async () => {
    const file = path.join(tempDir("cli-out-"), "missing-dir", "r.ndjson");
    const err = await resultsCommand(
      createClient({ url: "http://x", token: "t", fetch: noRequest }),
      "r1",
      { format: "ndjson", output: file },
      capture(),
    ).catch((e) => e);
    expect(err.message).toBe(`cannot write ${file}: there is no directory ${path.dirname(file)}`);
    expect(err.exitCode).toBe(2);
  });

  it("results refuses a directory as its output, before any request", async () => {
    const dir = tempDir("cli-out-");
    const err = await resultsCommand(
      createClient({ url: "http://x", token: "t", fetch: noRequest }),
      "r1",
      { format: "ndjson", output: dir },
      capture(),
    ).catch((e) => e);
    expect(err.message).toBe(`cannot write ${dir}: it is a directory`);
  });

  it("a file that cannot take the output's place is named, and the temp file is removed", async () => {
    const parent = tempDir("cli-out-");
    const target = path.join(parent, "taken");
    fs.mkdirSync(target);
    const err = await writeOutput(target, async (emit) => emit("x\n")).catch((e) => e);
    expect(err.message).toBe(`cannot write ${target}: it is a directory`);
    expect(fs.readdirSync(parent)).toEqual(["taken"]);
  });

  it("run --save-results is refused before the run is submitted, not once it has ended", async () => {
    const dir = tempDir("cli-out-");
    const benchmark = path.join(dir, "bench.json");
    const config = path.join(dir, "config.json");
    fs.writeFileSync(benchmark, JSON.stringify({ name: "b", questions: [] }));
    fs.writeFileSync(config, JSON.stringify({ answering_models: [] }));
    const saved = path.join(dir, "nope", "results.ndjson");
    const client = createClient({ url: "http://x", token: "t", fetch: noRequest });
    const err = await runCommand(
      client,
      benchmark,
      { config, maxErrors: 0, timeout: 10, pollMs: 100, saveResults: saved },
      capture(),
    ).catch((e) => e);
    expect(err.message).toBe(`--save-results: cannot write ${saved}: there is no directory ${path.dirname(saved)}`);
    const rescored = await rescoreCommand(
      client,
      "r1",
      { replicates: 3, maxErrors: 0, timeout: 10, pollMs: 100, saveResults: saved },
      capture(),
    ).catch((e) => e);
    expect(rescored.message).toBe(`--save-results: cannot write ${saved}: there is no directory ${path.dirname(saved)}`);
  });
});

describe("edgeval rescore", () => {
  it("posts what --add and --replicates add, follows the child run and prints both judges' pairs", async () => {
    const dir = tempDir("edgeval-rescore-");
    const add = path.join(dir, "add.yaml");
    fs.writeFileSync(add, "parsing_models:\n  - {id: j2, interface: openai, model_name: gpt-4.1-mini}\n");
    const pair = (parsing: string, passed: number) => ({
      answering_model: "a",
      parsing_model: parsing,
      total: 4,
      passed,
      failed: 4 - passed,
      errored: 0,
      pass_rate: passed / 4,
      traits: {},
    });
    const usage = { total: { input_tokens: 0, output_tokens: 0, cost_usd: 0 } };
    const asked: string[] = [];
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      const p = new URL(req.url).pathname;
      asked.push(`${req.method} ${p}${req.method === "POST" ? ` ${await req.text()}` : ""}`);
      if (req.method === "POST") return json({ run_id: "c1", status_url: "/v1/runs/c1" }, 202);
      if (p.endsWith("/events")) return json({ error: { code: "not_found", message: `no route GET ${p}` } }, 404);
      return json({
        run_id: "c1",
        status: "completed",
        progress: { total: 8, done: 8 },
        summary: [pair("j1", 3), pair("j2", 4)],
        summary_total: 2,
        usage,
      });
    }) as typeof globalThis.fetch;
    const out = capture();
    const code = await rescoreCommand(
      createClient({ url: "http://x", token: "t", fetch }),
      "r1",
      { add, replicates: 2, maxErrors: 0, timeout: 5, pollMs: 1 },
      out,
    );
    expect(code).toBe(0);
    expect(asked[0]).toBe(
      'POST /v1/runs/r1/rescore {"parsing_models":[{"id":"j2","interface":"openai","model_name":"gpt-4.1-mini"}],"replicate_count":2}',
    );
    expect(out.lines[0]).toBe("run c1 re-scores r1: http://x/v1/runs/c1");
    const table = out.lines.join("\n");
    expect(table).toContain("j1");
    expect(table).toContain("j2");
  });

  it("prints what the child grades afresh and leaves out of the parent (its scenarios) before following it", async () => {
    const leftOut = { what: "scenarios", ids: ["pushback"], results: 6, reason: "submit the benchmark again (POST /v1/runs)" };
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      const p = new URL(req.url).pathname;
      if (req.method === "POST")
        return json(
          {
            run_id: "c1",
            status_url: "/v1/runs/c1",
            left_out: [leftOut],
            graded_afresh: { results: 3, reason: "run r1 recorded 5 of its 8 results" },
          },
          202,
        );
      if (p.endsWith("/events")) return json({ error: { code: "not_found", message: `no route GET ${p}` } }, 404);
      return json({
        run_id: "c1",
        status: "completed",
        progress: { total: 1, done: 1 },
        summary: [],
        summary_total: 0,
        usage: { total: { input_tokens: 0, output_tokens: 0, cost_usd: 0 } },
      });
    }) as typeof globalThis.fetch;
    const out = capture();
    await rescoreCommand(
      createClient({ url: "http://x", token: "t", fetch }),
      "r1",
      { replicates: 2, maxErrors: 0, timeout: 5, pollMs: 1 },
      out,
    );
    expect(out.lines[1]).toBe("graded afresh: 3 result(s): run r1 recorded 5 of its 8 results");
    expect(out.lines[2]).toBe(
      'left out of the child: scenarios "pushback" (6 result(s) of run r1): submit the benchmark again (POST /v1/runs)',
    );
  });

  it("refuses to post nothing", async () => {
    const fetch = (async () => {
      throw new Error("no request expected");
    }) as typeof globalThis.fetch;
    const err = await rescoreCommand(
      createClient({ url: "http://x", token: "t", fetch }),
      "r1",
      { maxErrors: 0, timeout: 5, pollMs: 1 },
      capture(),
    ).catch((e) => e);
    expect(err.message).toContain("nothing to add");
  });
});

describe("edgeval run --preset", () => {
  /** A server that takes the run, has no event stream, and answers the run as completed with no pairs. */
  function scripted(bodies: unknown[]) {
    return routesFetch({
      "POST /v1/runs": async (req) => {
        bodies.push(await req.json());
        return acceptedR1();
      },
      "GET /v1/runs/r1": () => runR1("completed"),
    });
  }
  const files = () => {
    const dir = tempDir("cli-preset-");
    const benchmark = path.join(dir, "bench.json");
    fs.writeFileSync(benchmark, JSON.stringify({ name: "b", questions: [] }));
    const overrides = path.join(dir, "overrides.json");
    fs.writeFileSync(overrides, JSON.stringify({ answering_models: [{ id: "m", interface: "manual", manual_answers: {} }] }));
    return { benchmark, overrides };
  };
  const opts = { maxErrors: 0, timeout: 10, pollMs: 100 };

  it("names the preset by preset_id, with --config as the preset's overrides", async () => {
    const bodies: unknown[] = [];
    const { benchmark, overrides } = files();
    const client = createClient({ url: "http://x", token: "t", fetch: scripted(bodies) });
    expect(await runCommand(client, benchmark, { ...opts, preset: "pre_1", config: overrides }, capture())).toBe(0);
    expect(await runCommand(client, benchmark, { ...opts, preset: "pre_1" }, capture())).toBe(0);
    expect(bodies).toEqual([
      {
        preset_id: "pre_1",
        run_name: "bench.json",
        config: { answering_models: [{ id: "m", interface: "manual", manual_answers: {} }] },
        benchmark: { name: "b", questions: [] },
      },
      { preset_id: "pre_1", run_name: "bench.json", benchmark: { name: "b", questions: [] } },
    ]);
  });

  it("still refuses a run with neither --config nor --preset before any request", async () => {
    const err = await runCommand(
      createClient({ url: "http://x", token: "t", fetch: scripted([]) }),
      files().benchmark,
      opts,
      capture(),
    ).catch((e) => e);
    expect(err.message).toContain("--preset ID naming a stored preset");
  });
});

describe("edgeval run: the benchmark by id, a budget, prices", () => {
  /** A server that takes the run, has no event stream, and answers the run as completed with no pairs. */
  function scripted(bodies: unknown[]) {
    return routesFetch({
      "POST /v1/runs": async (req) => (bodies.push(await req.json()), acceptedR1()),
      "GET /v1/runs/r1": () => runR1("completed"),
    });
  }
  const opts = { maxErrors: 0, timeout: 10, pollMs: 100 };
  const file = (name: string, data: unknown) => {
    const f = path.join(tempDir("cli-run-body-"), name);
    fs.writeFileSync(f, typeof data === "string" ? data : JSON.stringify(data));
    return f;
  };

  it("--benchmark-id runs a stored benchmark; --budget-usd and --prices (JSON or YAML) go into the run's body", async () => {
    const bodies: unknown[] = [];
    const config = file("config.json", { answering_models: [] });
    const prices = file("prices.yaml", "gpt-x:\n  input_per_mtok: 0.15\n  output_per_mtok: 0.6\n");
    const client = createClient({ url: "http://x", token: "t", fetch: scripted(bodies) });
    expect(await runCommand(client, undefined, { ...opts, config, benchmarkId: "bm_1", budgetUsd: 2.5, prices }, capture())).toBe(0);
    expect(bodies).toEqual([
      {
        config: { answering_models: [] },
        budget_usd: 2.5,
        prices: { "gpt-x": { input_per_mtok: 0.15, output_per_mtok: 0.6 } },
        benchmark_id: "bm_1",
      },
    ]);
  });

  it("prints each warning the submit answers with, at its field", async () => {
    const warning = { path: "config.max_concurrent_requests", message: "accepted for Karenina compatibility but not applied: …" };
    const fetch = routesFetch({ "POST /v1/runs": () => acceptedR1With([warning]), "GET /v1/runs/r1": () => runR1("completed") });
    const out = capture();
    const config = file("config.json", { answering_models: [], max_concurrent_requests: 2 });
    expect(
      await runCommand(createClient({ url: "http://x", token: "t", fetch }), undefined, { ...opts, config, benchmarkId: "bm_1" }, out),
    ).toBe(0);
    expect(out.lines).toContain(`warning: config.max_concurrent_requests: ${warning.message}`);
  });

  it("edgeval import says to run the stored benchmark by --benchmark-id, not by the file (which would import it again)", async () => {
    const checkpoint = file("c.jsonld", { "@context": {}, name: "b" });
    const fetch = routesFetch({
      "POST /v1/benchmarks/import": () => json({ benchmark_id: "bm_9", imported: 3, warnings: [], errors: [] }, 201),
    });
    const out = capture();
    expect(await importCommand(createClient({ url: "http://x", token: "t", fetch }), checkpoint, out)).toBe(0);
    expect(out.lines.at(-1)).toBe('run it: edgeval run --benchmark-id bm_9 --config FILE   (or POST /v1/runs with "benchmark_id": "bm_9")');
  });

  it.each([
    [
      "neither a file nor --benchmark-id",
      undefined,
      undefined,
      "give the benchmark: a FILE (benchmark.json, or a Karenina checkpoint.jsonld), or --benchmark-id ID naming a stored one (edgeval import prints it)",
    ],
    ["both a file and --benchmark-id", "b.json", "bm_1", "give the benchmark once: a FILE (b.json) or --benchmark-id bm_1, not both"],
  ])("%s is refused before any request", async (_case, benchmark, benchmarkId, message) => {
    const bodies: unknown[] = [];
    const client = createClient({ url: "http://x", token: "t", fetch: scripted(bodies) });
    const err = await runCommand(client, benchmark, { ...opts, config: "c.json", benchmarkId }, capture()).catch((e) => e);
    expect(err.message).toBe(message);
    expect(bodies).toEqual([]);
  });

  it.each([
    [["gpt-x"], 'it must hold an object, {"MODEL": {"input_per_mtok": 0.15, "output_per_mtok": 0.6}} (USD per million tokens)'],
    [{ "gpt-x": { input_per_mtok: "0.15", output_per_mtok: 0.6 } }, '"gpt-x".input_per_mtok must be a number ≥ 0 (USD per million tokens)'],
    [{ "gpt-x": { input_per_mtok: 0.15 } }, '"gpt-x".output_per_mtok must be a number ≥ 0 (USD per million tokens)'],
    [
      { "gpt-x": { input: 0.15, output_per_mtok: 0.6 } },
      '"gpt-x".input is not a price field; each model takes input_per_mtok and output_per_mtok',
    ],
  ])("a --prices file holding %j is refused naming the model and field, before any request", async (data, message) => {
    const bodies: unknown[] = [];
    const prices = file("prices.json", data);
    const client = createClient({ url: "http://x", token: "t", fetch: scripted(bodies) });
    const err = await runCommand(client, undefined, { ...opts, config: file("c.json", {}), benchmarkId: "bm_1", prices }, capture()).catch(
      (e) => e,
    );
    expect(err.message).toContain(`--prices ${prices}: ${message}`);
    expect(bodies).toEqual([]);
  });
});

describe("edgeval run of a Karenina checkpoint", () => {
  it("lists the import's warnings and errors, as import does, not only their count", async () => {
    const dir = tempDir("cli-checkpoint-");
    const checkpoint = path.join(dir, "bench.jsonld");
    const config = path.join(dir, "config.json");
    fs.writeFileSync(checkpoint, JSON.stringify({ "@context": {}, "@type": "DataFeed", name: "b", dataFeedElement: [] }));
    fs.writeFileSync(config, JSON.stringify({ answering_models: [] }));
    const fetch = routesFetch({
      "POST /v1/benchmarks/import": () =>
        json({
          benchmark_id: "b1",
          imported: 2,
          warnings: [{ path: "rating[0]", message: 'trait "Completeness": not imported' }],
          errors: [{ path: "dataFeedElement[1].item", message: "template does not compile" }],
        }),
      "POST /v1/runs": acceptedR1,
      "GET /v1/runs/r1": () => runR1("completed"),
    });
    const out = capture();
    await runCommand(
      createClient({ url: "http://x", token: "t", fetch }),
      checkpoint,
      { config, maxErrors: 0, timeout: 10, pollMs: 100 },
      out,
    );
    expect(out.lines).toContain('warning rating[0]: trait "Completeness": not imported');
    expect(out.lines).toContain("error dataFeedElement[1].item: template does not compile (its question fails with template_validation)");
  });
});

describe("edgeval run: how the run ended is a gate", () => {
  /** A server with no event stream whose run r1 has ended with `status` after 4 of 48 results, every one a pass. */
  const ended = (status: string) =>
    routesFetch({
      "POST /v1/runs": acceptedR1,
      "GET /v1/runs/r1": () =>
        runR1(status, { total: 48, done: 4 }, [
          { answering_model: "a", parsing_model: "j", total: 24, passed: 4, failed: 0, errored: 0, pass_rate: 1 },
        ]),
    });
  const run = async (status: string) => {
    const dir = tempDir("cli-ended-");
    const benchmark = path.join(dir, "bench.json");
    const config = path.join(dir, "config.json");
    fs.writeFileSync(benchmark, JSON.stringify({ name: "b", questions: [] }));
    fs.writeFileSync(config, JSON.stringify({ answering_models: [] }));
    const out = capture();
    const client = createClient({ url: "http://x", token: "t", fetch: ended(status) });
    const code = await runCommand(client, benchmark, { config, failUnder: 0.5, maxErrors: 0, timeout: 10, pollMs: 100 }, out);
    return { code, lines: out.lines };
  };

  it("exits 1 when the run was cancelled, though every result it has passed", async () => {
    const { code, lines } = await run("cancelled");
    expect(lines).toContain("FAIL run r1 ended cancelled with 4/48 results: it was cancelled before every job ran");
    expect(lines.some((l) => l.startsWith("ok:"))).toBe(false);
    expect(code).toBe(1);
  });

  it("exits 0 for the same results when the run completed", async () => {
    const { code, lines } = await run("completed");
    expect(lines).toContain("ok: every gate passed (--fail-under 0.5, --max-errors 0)");
    expect(code).toBe(0);
  });
});

describe("edgeval run interrupted (Ctrl-C)", () => {
  it("says the run goes on on the server and how to cancel it, exit 130", async () => {
    const dir = tempDir("cli-sigint-");
    const benchmark = path.join(dir, "bench.json");
    const config = path.join(dir, "config.json");
    fs.writeFileSync(benchmark, JSON.stringify({ name: "b", questions: [] }));
    fs.writeFileSync(config, JSON.stringify({ answering_models: [] }));
    let polls = 0;
    const fetch = routesFetch({
      "POST /v1/runs": acceptedR1,
      "GET /v1/runs/r1": () => {
        // The user presses Ctrl-C while the run is still running.
        if (++polls === 2) process.emit("SIGINT");
        return runR1("running", { total: 48, done: 1 });
      },
    });
    const client = createClient({ url: "http://x", token: "t", fetch });
    const err = await runCommand(client, benchmark, { config, maxErrors: 0, timeout: 30, pollMs: 100 }, capture()).catch((e) => e);
    expect(err.message).toBe(
      "interrupted: run r1 goes on on the server; follow it again with: edgeval watch r1, or stop it with: edgeval cancel r1",
    );
    expect(err.exitCode).toBe(130);
    expect(process.listenerCount("SIGINT")).toBe(0);
  });
});

describe("edgeval judge: files that are not what it needs", () => {
  const noRequest = (async () => {
    throw new Error("no request expected");
  }) as typeof globalThis.fetch;
  const client = () => createClient({ url: "http://x", token: "t", fetch: noRequest });

  it("a --config file holding no object (empty YAML, a string) is named, before any request", async () => {
    const dir = tempDir("cli-judge-");
    for (const [name, text] of [
      ["empty.yaml", ""],
      ["word.json", '"likert"'],
    ] as const) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, text);
      const err = await judgeCommand(client(), { config: file, output: "x" }, capture()).catch((e) => e);
      expect(err.message).toBe(`${file} must hold the judge config, an object ({type: …} or {pipeline: […]}), or {config, prices?, vars?}`);
      expect(err.exitCode).toBe(2);
    }
  });

  it("an @file that cannot be read is named with its flag", async () => {
    const dir = tempDir("cli-judge-");
    const config = path.join(dir, "judge.json");
    fs.writeFileSync(config, JSON.stringify({ type: "likert" }));
    const missing = path.join(dir, "answer.txt");
    const err = await judgeCommand(client(), { config, output: `@${missing}` }, capture()).catch((e) => e);
    expect(err.message).toBe(`--output @${missing}: cannot read ${missing}: no such file`);
    expect(err.exitCode).toBe(2);
  });
});

describe("reading the files given", () => {
  it("reads a JSON file that starts with a byte order mark, as Windows editors write them", () => {
    const file = path.join(tempDir("cli-bom-"), "config.json");
    fs.writeFileSync(file, `\uFEFF${JSON.stringify({ replicate_count: 2 })}`);
    expect(readData(file)).toEqual({ replicate_count: 2 });
  });
});

describe("edgeval judges list", () => {
  it("prints every stored judge, following next_cursor past the first page", async () => {
    const judge = (id: string) => ({ judge_id: id, name: `n ${id}`, deadline_ms: 4000, promptfoo_url: `/v1/judges/${id}/promptfoo` });
    const asked: string[] = [];
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(new Request(input, init).url);
      asked.push(`${url.pathname}${url.search}`);
      return url.searchParams.get("cursor") === "c1"
        ? json({ judges: [judge("jdg_1")], next_cursor: null })
        : json({ judges: [judge("jdg_3"), judge("jdg_2")], next_cursor: "c1" });
    }) as typeof globalThis.fetch;
    const out = capture();
    expect(await judgesCommand(createClient({ url: "http://x", token: "t", fetch }), "list", {}, out)).toBe(0);
    expect(asked).toEqual(["/v1/judges", "/v1/judges?cursor=c1"]);
    expect(out.lines).toEqual([
      "jdg_3  n jdg_3  deadline 4000 ms  /v1/judges/jdg_3/promptfoo",
      "jdg_2  n jdg_2  deadline 4000 ms  /v1/judges/jdg_2/promptfoo",
      "jdg_1  n jdg_1  deadline 4000 ms  /v1/judges/jdg_1/promptfoo",
    ]);
  });
});

describe("edgeval keys list and judges tokens", () => {
  /** A server answering each list in two pages: the first without a cursor, the second at cursor c1. */
  function twoPages(field: string, first: unknown[], second: unknown[]) {
    const asked: string[] = [];
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(new Request(input, init).url);
      asked.push(`${url.pathname}${url.search}`);
      return url.searchParams.get("cursor") === "c1"
        ? json({ [field]: second, next_cursor: null })
        : json({ [field]: first, next_cursor: "c1" });
    }) as typeof globalThis.fetch;
    return { client: createClient({ url: "http://x", token: "t", fetch }), asked };
  }

  it("keys list prints every key, following next_cursor past the first page", async () => {
    const key = (id: string, revoked: string | null) => ({
      key_id: id,
      name: `n ${id}`,
      scopes: ["runs:read"],
      revoked_at: revoked,
      expires_at: null,
    });
    const { client, asked } = twoPages("keys", [key("k3", null), key("k2", "2026-12-01T00:00:00.000Z")], [key("k1", null)]);
    const out = capture();
    expect(await keysCommand(client, "list", {}, out)).toBe(0);
    expect(asked).toEqual(["/v1/keys", "/v1/keys?cursor=c1"]);
    expect(out.lines).toEqual([
      "k3  n k3  runs:read  active",
      "k2  n k2  runs:read  revoked 2026-12-01T00:00:00.000Z",
      "k1  n k1  runs:read  active",
    ]);
  });

  it("judges tokens prints every token of the judge, following next_cursor past the first page", async () => {
    const token = (id: string, expires_at: string | null = null) => ({
      token_id: id,
      name: `n ${id}`,
      revoked_at: null,
      expires_at,
      last_used_at: null,
    });
    const { client, asked } = twoPages(
      "tokens",
      [token("t3", "2099-01-01T00:00:00.000Z"), token("t2", "2020-01-01T00:00:00.000Z")],
      [token("t1")],
    );
    const out = capture();
    expect(await judgesCommand(client, "tokens", { id: "jdg_1" }, out)).toBe(0);
    expect(asked).toEqual(["/v1/judges/jdg_1/tokens", "/v1/judges/jdg_1/tokens?cursor=c1"]);
    expect(out.lines).toEqual([
      "t3  n t3  expires 2099-01-01T00:00:00.000Z  last used never",
      "t2  n t2  expired 2020-01-01T00:00:00.000Z  last used never",
      "t1  n t1  active  last used never",
    ]);
  });
});

describe("edgeval keys create and rotate", () => {
  /** A server that records each body and answers a minted key. */
  function minting() {
    const bodies: unknown[] = [];
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      bodies.push(await new Request(input, init).json());
      return json({ key_id: "k2", key: "ev_k2", scopes: ["runs:read"], expires_at: null }, 201);
    }) as typeof globalThis.fetch;
    return { client: createClient({ url: "http://x", token: "t", fetch }), bodies };
  }

  it("send no expires_at unless --expires-at is given: the server's default (the rotated key's lifetime), never an explicit null", async () => {
    const { client, bodies } = minting();
    await keysCommand(client, "create", { name: "ci", scopes: "runs:read" }, capture());
    await keysCommand(client, "rotate", { id: "k1" }, capture());
    await keysCommand(client, "rotate", { id: "k1", expiresAt: "2027-01-01T00:00:00Z" }, capture());
    expect(bodies).toEqual([{ name: "ci", scopes: ["runs:read"] }, {}, { expires_at: "2027-01-01T00:00:00Z" }]);
  });
});

describe("keys and judges: an unknown action", () => {
  it("is named as unknown, with the actions there are, even without an id", async () => {
    const client = createClient({ url: "http://x", token: "t", fetch: (async () => json({})) as typeof globalThis.fetch });
    const keys = await keysCommand(client, "lst", {}, capture()).catch((e) => e);
    expect(keys.message).toBe("unknown keys action lst: list, create, rotate or revoke");
    const judges = await judgesCommand(client, "lsit", {}, capture()).catch((e) => e);
    expect(judges.message).toBe(
      "unknown judges action lsit: list | store --config F | replace ID --config F | delete ID | token ID [--name N] [--expires-at T] | tokens ID | revoke ID --token-id T",
    );
  });
});

/** main() on argv, with what commander writes to stderr (its usage errors): [exit code, text]. */
async function mainWithStderr(argv: string[]): Promise<[number, string]> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((s) => (written.push(String(s)), true));
  try {
    return [await main(argv, capture()), written.join("")];
  } finally {
    spy.mockRestore();
  }
}

const RUN = "run b.json --config c.json";
const RESCORE = "rescore r1 --replicates 3";

describe("edgeval's options", () => {
  it.each([
    // longer than a timer can wait: Node would fire it at once, polling every millisecond
    ["--poll-ms", "3000000000", [RUN, RESCORE], '--poll-ms takes a whole number from 100 to 2147483647 (got "3000000000")'],
    // longer than a timer can wait (24 days): an immediate timeout
    ["--timeout", "3000000", [RUN], '--timeout takes a number from 1 to 2147483 (24 days) (got "3000000")'],
    // a pass rate is 0 to 1: 90 (meant as 90 %) would be a gate nothing can pass
    ["--fail-under", "90", [RUN, RESCORE], '--fail-under takes a pass rate from 0 to 1, e.g. 0.9 for 90 % (got "90")'],
    // a cap of 0 would stop the run before its first job; "$5" is not a number
    ["--budget-usd", "0", [RUN], '--budget-usd takes an amount in USD above 0, e.g. 2.50 (got "0")'],
    ["--budget-usd", "$5", [RUN], '--budget-usd takes an amount in USD above 0, e.g. 2.50 (got "$5")'],
  ])("%s %s is refused, naming the range", async (flag, value, commands, message) => {
    for (const command of commands) {
      const argv = ["node", "edgeval", ...command.split(" "), flag, value, "--token", "t", "--url", "http://127.0.0.1:9"];
      const [code, stderr] = await mainWithStderr(argv);
      expect(code, command).toBe(2);
      expect(stderr).toContain(message);
    }
  });

  it("--version prints the version package.json holds and exits 0", async () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((s) => (written.push(String(s)), true));
    try {
      expect(await main(["node", "edgeval", "--version"], capture())).toBe(0);
    } finally {
      spy.mockRestore();
    }
    const { version } = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "../../../package.json"), "utf8"));
    expect(written.join("").trim()).toBe(version);
  });
});

describe("edgeval judges", () => {
  it("stores a judge from a file and prints a token once on stdout, the promptfoo URL naming the env var on stderr", async () => {
    const seen: string[] = [];
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      const where = `${req.method} ${new URL(req.url).pathname}`;
      seen.push(`${where} ${req.method === "POST" ? await req.text() : ""}`.trim());
      if (where === "POST /v1/judges") return json({ judge_id: "jdg_1", promptfoo_url: "/v1/judges/jdg_1/promptfoo" }, 201);
      if (where === "POST /v1/judges/jdg_1/tokens") {
        return json(
          {
            token_id: "abc",
            judge_id: "jdg_1",
            name: "ci",
            token: "jt_abc_secret",
            promptfoo_url: "/v1/judges/jdg_1/promptfoo?token=jt_abc_secret",
          },
          201,
        );
      }
      return json({ error: { code: "not_found", message: `no route ${where}` } }, 404);
    }) as typeof globalThis.fetch;
    const client = createClient({ url: "http://x", token: "t", fetch });
    const file = path.join(tempDir("cli-judges-"), "judge.json");
    fs.writeFileSync(file, JSON.stringify({ name: "capitals", config: { type: "judge" } }));
    const stored = capture();
    expect(await judgesCommand(client, "store", { config: file }, stored)).toBe(0);
    expect(stored.lines[0]).toBe("jdg_1");
    const minted = capture();
    expect(await judgesCommand(client, "token", { id: "jdg_1", name: "ci" }, minted)).toBe(0);
    expect(minted.lines).toEqual([
      "jt_abc_secret",
      "token abc for judge jdg_1: shown once; promptfoo posts to http://x/v1/judges/jdg_1/promptfoo?token={{ env.EDGEVAL_JUDGE_TOKEN }}",
    ]);
    expect(seen).toEqual(['POST /v1/judges {"name":"capitals","config":{"type":"judge"}}', 'POST /v1/judges/jdg_1/tokens {"name":"ci"}']);
    const err = await judgesCommand(client, "revoke", { id: "jdg_1" }, capture()).catch((e) => e);
    expect(err.message).toContain("--token-id");
  });
});
