/**
 * Issue 24, Done when: a contract test. Against a local stack (wrangler dev, fresh state, the fake
 * LLM), the typed client drives the e2e run of examples/basic and every other documented route
 * (runs, results, benchmarks and checkpoints, judge and calibrate, keys, secrets, usage, audit,
 * webhooks, triggers and a signed hook delivery, presets, stored judges and promptfoo's webhook call,
 * exports in three formats, run comparison, schedules, re-scoring, the operator's tenants) plus refusals (400, 401, 404, 405, 409, 413, 415). Every
 * response it received is then validated against the response schema /openapi.json (as served)
 * documents for its operation and status: an undocumented status or a body that does not fit fails.
 */
import { createHmac } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, EdgevalApiError, type EdgevalClient } from "../../src/client/index.ts";
import { documentValidator } from "../support/openapi-validator";
// @ts-expect-error plain-Node module without types
import { readEnvFile } from "../../scripts/lib/env-files.mjs";
// @ts-expect-error plain-Node module without types
import { REPO_ROOT, startLocalStack } from "../../scripts/lib/local-stack.mjs";

type Json = Record<string, any>;
interface Exchange {
  method: string;
  path: string;
  status: number;
  contentType: string;
  body: string;
}

const example = (f: string) => JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "examples/basic", f), "utf8"));

/** An event stream's frames as {event, id?, data} (comments and the retry line left out). */
function sseFrames(text: string): Json[] {
  const out: Json[] = [];
  for (const block of text.split("\n\n")) {
    const f: Json = {};
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) f.event = line.slice(7);
      else if (line.startsWith("id: ")) f.id = line.slice(4);
      else if (line.startsWith("data: ")) f.data = JSON.parse(line.slice(6));
    }
    if (f.event) out.push(f);
  }
  return out;
}

/**
 * The documented operation a concrete path and method fall under, with its OpenAPI path. Templates
 * with fewer parameters first: /v1/runs/compare is its own operation, not /v1/runs/{id}.
 */
function operationFor(doc: Json, method: string, pathname: string): { template: string; op: Json } | null {
  const params = (t: string) => t.split("{").length;
  const templates = Object.entries<Json>(doc.paths).sort(([a], [b]) => params(a) - params(b));
  for (const [template, item] of templates) {
    const re = new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`);
    if (re.test(pathname) && item[method.toLowerCase()]) return { template, op: item[method.toLowerCase()] };
  }
  return null;
}

describe("real responses fit the schemas /openapi.json documents", () => {
  let stack: { url: string; token: string; fake: { url: string }; stop(): Promise<void> };
  let doc: Json;
  let ev: EdgevalClient;
  const seen: Exchange[] = [];

  const recording = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await fetch(input, init);
    const req = new Request(input, init);
    const exchange: Exchange = {
      method: req.method,
      path: new URL(req.url).pathname,
      status: res.status,
      contentType: res.headers.get("content-type") ?? "",
      body: "",
    };
    seen.push(exchange);
    if (!exchange.contentType.includes("event-stream") || !res.body) {
      exchange.body = await res.clone().text();
      return res;
    }
    // An event stream is recorded as the client reads it, not cloned: a clone is a tee, and a tee's
    // branch cancels only when both do, so the client's cancel after `done` would wait forever.
    const decoder = new TextDecoder();
    const recorded = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          exchange.body += decoder.decode(chunk, { stream: true });
          out.enqueue(chunk);
        },
      }),
    );
    return new Response(recorded, { status: res.status, headers: res.headers });
  }) as typeof fetch;

  /** A raw call through the recorder (for refusals the typed client would not send). */
  const raw = (method: string, p: string, init: { body?: string; headers?: Record<string, string> } = {}) =>
    recording(`${stack.url}${p}`, { method, body: init.body, headers: { authorization: `Bearer ${stack.token}`, ...init.headers } });

  beforeAll(async () => {
    stack = await startLocalStack({ fake: { script: path.join(REPO_ROOT, "examples/basic/fake-script.json") } });
    doc = await (await fetch(`${stack.url}/openapi.json`)).json();
    ev = createClient({ url: stack.url, token: stack.token, fetch: recording });
  }, 120_000);
  afterAll(async () => stack?.stop());

  it("drives every documented route through the typed client", async () => {
    const point = (m: Json) => ({ ...m, base_url: `${stack.fake.url}/v1` });
    const basic = example("config.json");
    const config = { ...basic, answering_models: basic.answering_models.map(point), parsing_models: basic.parsing_models.map(point) };
    const benchmark = example("benchmark.json");

    // Runs: dry run, submit (idempotent), watch (the events stream, read to its done), pages.
    await ev.runs.dryRun({ benchmark, config });
    const { run_id } = await ev.runs.create({ benchmark, config, run_name: "contract" }, { idempotencyKey: "contract-1" });
    expect((await ev.runs.create({ benchmark, config, run_name: "contract" }, { idempotencyKey: "contract-1" })).run_id).toBe(run_id);
    const final = await ev.runs.wait(run_id, { pollMs: 300, onFallback: (why) => expect.fail(why) });
    expect(final.status).toBe("completed");
    // A finished run's stream resumed after its first result; a Last-Event-ID it never sent is a 400.
    const rest = await (await raw("GET", `/v1/runs/${run_id}/events`, { headers: { "last-event-id": "1" } })).text();
    expect(sseFrames(rest).filter((f) => f.event === "result")).toHaveLength(47);
    await raw("GET", `/v1/runs/${run_id}/events`, { headers: { "last-event-id": "not-ours" } });
    await ev.runs.list({ limit: 5 });
    await ev.runs.summary(run_id, { limit: 1 });
    const results: Json[] = [];
    for await (const r of ev.results.iterate(run_id, { limit: 20 })) results.push(r);
    expect(results).toHaveLength(48);
    await ev.results.get(run_id, results[0]!.metadata.result_id);

    // Results out: exports (csv and ndjson streamed, karenina built, downloaded), comparison.
    expect((await (await ev.exports.stream(run_id, { format: "csv" })).text()).split("\n")[0]).toMatch(/^question_id,/);
    expect((await (await ev.exports.stream(run_id, { format: "ndjson", verdict: "pass" })).text()).length).toBeGreaterThan(0);
    const built = await ev.exports.create(run_id, { format: "karenina" });
    await ev.exports.download(run_id, built.export_id).catch((e) => expect(e.code).toBe("export_not_ready")); // building, or already ready
    await ev.exports.wait(run_id, built.export_id, { pollMs: 300 });
    expect(JSON.parse(await (await ev.exports.download(run_id, built.export_id)).text()).results).toHaveLength(48);
    expect((await ev.exports.list(run_id, { limit: 5 })).exports.map((e) => e.export_id)).toContain(built.export_id);
    expect((await ev.runs.compare({ a: run_id, b: run_id })).model_pairs.length).toBeGreaterThan(0);

    // Re-score (issue 22): a second judge over the run's answers; the child's GET shows its parent.
    const child = await ev.runs.rescore(run_id, { parsing_models: [{ ...config.parsing_models[0], id: "second-judge" }] });
    expect((await ev.runs.wait(child.run_id, { pollMs: 300 })).lineage.parent_run_id).toBe(run_id);

    // Benchmarks and Karenina checkpoints.
    const stored = await ev.benchmarks.create(benchmark);
    await ev.benchmarks.list();
    await ev.benchmarks.get(stored.benchmark_id);
    const checkpoint = await ev.benchmarks.checkpoint(stored.benchmark_id);
    const imported = await ev.benchmarks.import(JSON.parse(checkpoint));
    await ev.benchmarks.delete(imported.benchmark_id);

    // Judge and calibration (the fake has no rule for these prompts: a judge failure is still a 200 outcome).
    const judge = { type: "likert", provider: config.parsing_models[0], retries: 1 };
    await ev.judges.judge({ output: "BCL-2", reference: "BCL-2", config: judge } as never);
    await ev.judges.calibrate({
      config: judge,
      items: [
        { output: "a", label: true },
        { output: "b", label: false },
      ],
    } as never);

    // Keys, secrets, usage, audit.
    const key = await ev.keys.create({ name: "contract", scopes: ["runs:read"] });
    await ev.keys.list();
    const rotated = await ev.keys.rotate(key.key_id);
    await ev.keys.revoke(key.key_id);
    await ev.keys.revoke(rotated.key_id);
    await ev.secrets.put("CONTRACT_KEY", { value: "sk-contract", interface: "openai_compatible", origins: [stack.fake.url] });
    await ev.secrets.put("CONTRACT_KEY", { value: "sk-contract-2", interface: "openai_compatible" });
    await ev.secrets.list();
    await ev.secrets.delete("CONTRACT_KEY");
    await ev.usage.month();
    await raw("GET", "/v1/audit?limit=3");

    // Webhooks (http is allowed in local mode), then the run's deliveries and a retry of one.
    const hook = (await (
      await raw("POST", "/v1/webhook-endpoints", {
        body: JSON.stringify({ url: `${stack.fake.url}/hook` }),
        headers: { "content-type": "application/json" },
      })
    ).json()) as { endpoint_id: string };
    await raw("GET", "/v1/webhook-endpoints");
    await raw("GET", `/v1/webhook-endpoints/${hook.endpoint_id}`);
    await raw("PATCH", `/v1/webhook-endpoints/${hook.endpoint_id}`, {
      body: '{"description": "contract"}',
      headers: { "content-type": "application/json" },
    });
    await raw("POST", `/v1/webhook-endpoints/${hook.endpoint_id}/rotate-secret`, {
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    await raw("POST", `/v1/webhook-endpoints/${hook.endpoint_id}/test`);
    await raw("GET", `/v1/webhook-endpoints/${hook.endpoint_id}/deliveries`);
    await raw("POST", `/v1/webhook-endpoints/${hook.endpoint_id}/deliveries/none/retry`);
    await raw("DELETE", `/v1/webhook-endpoints/${hook.endpoint_id}`);

    // Triggers: a signed delivery (hex_header: HMAC-SHA256 computed here in Node) starts the stored benchmark.
    const json = { "content-type": "application/json" };
    const trigger = (await (
      await raw("POST", "/v1/triggers", {
        body: JSON.stringify({
          name: "contract",
          benchmark_id: stored.benchmark_id,
          config,
          signing: { scheme: "hex_header", header: "x-signature" },
        }),
        headers: json,
      })
    ).json()) as { trigger_id: string; secret: string };
    await raw("GET", "/v1/triggers");
    await raw("GET", `/v1/triggers/${trigger.trigger_id}`);
    const payload = '{"ref": "main"}';
    const hooked = await raw("POST", `/v1/hooks/${trigger.trigger_id}`, {
      body: payload,
      headers: { ...json, "x-signature": createHmac("sha256", trigger.secret).update(payload).digest("hex") },
    });
    expect(hooked.status).toBe(202);
    await raw("POST", `/v1/hooks/${trigger.trigger_id}`, { body: payload, headers: { ...json, "x-signature": "0".repeat(64) } });
    await raw("POST", `/v1/triggers/${trigger.trigger_id}/rotate-secret`, { body: '{"overlap_seconds": 60}', headers: json });
    await ev.runs.wait(((await hooked.json()) as { run_id: string }).run_id, { pollMs: 300 });
    await raw("DELETE", `/v1/triggers/${trigger.trigger_id}`);

    // Presets: Karenina's preset file as is, replaced, named by a dry run with overrides, deleted.
    const presetFile = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "test/fixtures/karenina/preset_full.json"), "utf8"));
    const preset = (await (await raw("POST", "/v1/presets", { body: JSON.stringify(presetFile), headers: json })).json()) as {
      preset_id: string;
    };
    await raw("GET", "/v1/presets");
    await raw("GET", `/v1/presets/${preset.preset_id}`);
    await raw("PUT", `/v1/presets/${preset.preset_id}`, { body: JSON.stringify({ ...presetFile, name: "full" }), headers: json });
    const presetRun = await raw("POST", "/v1/runs", {
      body: JSON.stringify({
        benchmark,
        preset_id: preset.preset_id,
        config: { answering_models: config.answering_models, parsing_models: config.parsing_models },
        dry_run: true,
      }),
      headers: json,
    });
    expect(presetRun.status).toBe(200);

    // Schedules: the stored benchmark with the preset (overridden as the dry run above was); never fired here.
    const overrides = { answering_models: config.answering_models, parsing_models: config.parsing_models };
    const sched = await ev.schedules.create({
      name: "contract",
      cron: "0 3 * * *",
      benchmark_id: stored.benchmark_id,
      preset_id: preset.preset_id,
      config: overrides,
    });
    await ev.schedules.list();
    await ev.schedules.get(sched.schedule_id);
    await ev.schedules.update(sched.schedule_id, { enabled: false });
    await ev.schedules.delete(sched.schedule_id);
    await raw("DELETE", `/v1/presets/${preset.preset_id}`);

    // Stored judges and promptfoo's webhook route (no bearer: the judge token in the URL, as promptfoo sends it).
    const storedModel = { ...config.parsing_models[0], id: "stored", model_name: "contract-stored-judge" };
    await fetch(`${stack.fake.url}/_admin/rules`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({
        rules: [
          { match: { model: "contract-stored-judge", contains: "Paris" }, reply: { json: { answer: 5 } } },
          { match: { model: "contract-stored-judge" }, reply: { fault: "500" } },
        ],
      }),
    });
    const storedBody = {
      name: "contract",
      config: { type: "likert" as const, prompt: "Is {{output}} the capital named in {{reference}}?", provider: storedModel, retries: 1 },
      mapping: { reference: "expected" },
    };
    const storedJudge = await ev.storedJudges.create(storedBody);
    await ev.storedJudges.list();
    await ev.storedJudges.get(storedJudge.judge_id);
    await ev.storedJudges.replace(storedJudge.judge_id, { ...storedBody, deadline_ms: 3000 });
    const judgeToken = await ev.storedJudges.mintToken(storedJudge.judge_id, { name: "contract" });
    await ev.storedJudges.tokens(storedJudge.judge_id);
    const promptfooPost = (capital: string) =>
      recording(`${stack.url}${judgeToken.promptfoo_url}`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ output: capital, context: { prompt: "A capital?", vars: { expected: capital } } }),
      });
    expect(((await (await promptfooPost("Paris")).json()) as { pass: unknown }).pass).toBe(true);
    // The fake fails every call without "Paris": the judge cannot decide.
    expect((await promptfooPost("Berlin")).status).toBe(502);
    await ev.storedJudges.revokeToken(storedJudge.judge_id, judgeToken.token_id);
    expect((await promptfooPost("Paris")).status).toBe(401);
    await ev.storedJudges.delete(storedJudge.judge_id);

    // The operator's routes, with the admin token of .dev.vars.
    const admin = {
      authorization: `Bearer ${readEnvFile(path.join(REPO_ROOT, ".dev.vars")).EDGEVAL_ADMIN_TOKEN}`,
      "content-type": "application/json",
    };
    await raw("POST", "/v1/admin/tenants", { body: '{"name": "Contract", "tenant_id": "contract"}', headers: admin });
    await raw("GET", "/v1/admin/tenants/contract", { headers: admin });
    await raw("GET", "/v1/admin/tenants?limit=1", { headers: admin });
    await raw("GET", "/v1/admin/tenants/contract/usage", { headers: admin });
    await raw("PATCH", "/v1/admin/tenants/contract", { body: '{"retention_days": 30}', headers: admin });
    const recovery = await raw("POST", "/v1/admin/tenants/contract/keys", {
      body: '{"name": "recovery", "scopes": ["keys:admin"]}',
      headers: admin,
    });
    await raw("GET", "/v1/admin/tenants/contract/keys?limit=1", { headers: admin });
    await raw("DELETE", `/v1/admin/tenants/contract/keys/${((await recovery.json()) as { key_id: string }).key_id}`, { headers: admin });

    // Refusals: each must be a documented status with the ErrorResponse shape.
    await ev.runs.create({ config } as never).catch((e) => expect(e).toBeInstanceOf(EdgevalApiError));
    await raw("POST", "/v1/runs", { body: "{", headers: { "content-type": "application/json" } });
    await raw("POST", "/v1/runs", { body: "{}", headers: { "content-type": "text/plain" } });
    await raw("POST", "/v1/judge", {
      body: JSON.stringify({ output: "x".repeat(1_100_000), config: judge }),
      headers: { "content-type": "application/json" },
    });
    await raw("GET", "/v1/runs?limit=0");
    await raw("GET", "/v1/runs", { headers: { authorization: "Bearer wrong" } });
    await raw("GET", "/v1/runs/no-such-run");
    await raw("PUT", "/v1/runs");
    await ev.runs.create({ benchmark, config, run_name: "other" }, { idempotencyKey: "contract-1" }).catch(() => {});
    // Cancel: a finished run is a 409 run_finished; a fresh one is cancelled (or has ended first: 409 too).
    expect(await ev.runs.cancel(run_id).catch((e) => e.code)).toBe("run_finished");
    const second = await ev.runs.create({ benchmark, config, run_name: "to cancel" });
    const outcome = await ev.runs.cancel(second.run_id).then(
      (r) => r.status,
      (e) => e.code,
    );
    expect(["cancelled", "run_finished"]).toContain(outcome);
    await ev.runs.wait(second.run_id, { pollMs: 300 });
    await ev.runs.delete(run_id);

    const statuses = new Set(seen.map((x) => x.status));
    for (const s of [200, 201, 202, 400, 401, 404, 405, 409, 413, 415, 502]) expect(statuses, `no ${s} seen`).toContain(s);
  }, 240_000);

  it("every response fits its documented schema, and every documented operation was exercised", () => {
    const check = documentValidator(doc);
    const problems: string[] = [];
    const exercised = new Set<string>();
    for (const x of seen) {
      const found = operationFor(doc, x.method, x.path);
      const where = `${x.method} ${x.path} → ${x.status}`;
      if (!found) {
        // A path the API does not have: only the error shape applies.
        if (x.status !== 404 && x.status !== 405) problems.push(`${where}: not a documented operation`);
        else problems.push(...check("#/components/schemas/ErrorResponse", JSON.parse(x.body)).map((p) => `${where}: ${p}`));
        continue;
      }
      exercised.add(`${x.method} ${found.template}`);
      const response = found.op.responses[String(x.status)];
      if (!response) {
        problems.push(`${where}: status not documented for ${found.template}`);
        continue;
      }
      const documentedMedia = Object.entries<Json>(response.content ?? {});
      if (documentedMedia.length === 0) continue;
      // The documented media type the response came as (an export answers CSV, NDJSON or JSON).
      const [mediaType, media] = documentedMedia.find(([type]) => x.contentType.startsWith(type)) ?? [];
      if (!media) {
        problems.push(`${where}: content-type ${x.contentType}, documented ${documentedMedia.map(([t]) => t).join(" or ")}`);
        continue;
      }
      if (mediaType === "text/event-stream") {
        // Every frame the client read must fit the documented item schema; the stream ends with done.
        const frames = sseFrames(x.body);
        if (frames.at(-1)?.event !== "done") problems.push(`${where}: the stream did not end with a done event`);
        for (const f of frames) problems.push(...check(media["x-item-schema"].$ref, f).map((p) => `${where} ${f.event} frame: ${p}`));
        continue;
      }
      const body = /[/+]json$/.test(mediaType!) ? JSON.parse(x.body) : x.body;
      problems.push(...check(media.schema.$ref, body).map((p) => `${where}: ${p}`));
      if (x.status >= 400) {
        const code = JSON.parse(x.body).error.code;
        if (!found.op["x-error-codes"].includes(code)) problems.push(`${where}: error code ${code} is not listed for ${found.template}`);
      }
    }
    expect(problems).toEqual([]);
    // The same check refuses a status body with a field the document lacks, or without one it requires.
    const status = JSON.parse(seen.find((x) => x.method === "GET" && /^\/v1\/runs\/[^/]+$/.test(x.path) && x.status === 200)!.body);
    expect(check("#/components/schemas/RunStatus", status)).toEqual([]);
    expect(check("#/components/schemas/RunStatus", { ...status, undocumented: 1 })).not.toEqual([]);
    const { manifest: _dropped, ...withoutManifest } = status;
    expect(check("#/components/schemas/RunStatus", withoutManifest)).not.toEqual([]);
    const documented = Object.entries<Json>(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`));
    expect(documented.filter((d) => !exercised.has(d))).toEqual([]);
  });
});
