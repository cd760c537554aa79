/**
 * Issue 16 (bounded input), the other half of fuzz-write-routes.test.ts: bodies valid for their
 * route, whose free-form parts (names, descriptions, prompts, configs of any JSON, any unicode) come
 * from fast-check, are accepted (2xx) and read back byte-identical: the JSON of every part sent is
 * the JSON of the part read.
 *
 * Every write route of `app.routes` must appear below, in READBACK (how a valid body is built and
 * read back) or in NO_STORED_BODY (why there is nothing to read back), so a new route fails here
 * until it says which. POST /v1/benchmarks reads back in fuzz-readback.test.ts.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/app";
import { fakeModel } from "./helpers";
import { ADMIN_TOKEN, apiAs, createTenant, type TestTenant } from "./tenant-helpers";

const WRITE = new Set(["POST", "PUT", "PATCH"]);
const writeRoutes = [
  ...new Set(
    buildApp()
      .routes.filter((r) => WRITE.has(r.method) && r.path.startsWith("/v1/"))
      .map((r) => `${r.method} ${r.path}`),
  ),
];

/** Routes whose body is not stored as sent: nothing to read back (the reason is the value). */
const NO_STORED_BODY: Record<string, string> = {
  "POST /v1/benchmarks": "read back in fuzz-readback.test.ts (300 benchmarks)",
  "POST /v1/benchmarks/import": "a Karenina checkpoint is converted, not stored as sent; its round trip is benchmarks.test.ts",
  "POST /v1/keys/:id/rotate": "mints a new key; its only input, expires_at, is read back through POST /v1/keys",
  "POST /v1/runs/:id/cancel": "no body",
  "POST /v1/judge": "computes a verdict, stores nothing",
  "POST /v1/judge/calibrate": "computes agreement figures, stores nothing",
  "POST /v1/webhook-endpoints/:id/rotate-secret": "mints a secret shown once; overlap_seconds is not a stored part",
  "POST /v1/webhook-endpoints/:id/deliveries/:delivery_id/retry": "no body",
  "POST /v1/webhook-endpoints/:id/test": "no fields: sends a test event, stores only its delivery (webhooks.test.ts)",
  "POST /v1/triggers/:id/rotate-secret":
    "mints a secret shown once; overlap_seconds reads back as previous_secret_expires_at (triggers.test.ts)",
  "POST /v1/hooks/:trigger_id": "a sender's payload, read through the trigger's mapping into a run (triggers.test.ts)",
  "POST /v1/judges/:id/promptfoo": "promptfoo's test output, graded; stores nothing (stored-judges.test.ts)",
  "POST /v1/runs/:id/rescore":
    "starts a child run; the models and traits it adds read back in the child's manifest and results (rescore.test.ts)",
  "POST /v1/runs/:id/exports":
    "a format and result filters (fixed vocabularies, no free text), turned into a file built in R2 (run-exports.test.ts)",
};

// Free-form text of any unicode; ≤ 40 code points stays inside every length limit in UTF-16 units.
const text = fc.string({ unit: "binary", minLength: 1, maxLength: 40 });
const isoFuture = fc.integer({ min: 1, max: 3650 }).map((d) => new Date(Date.UTC(2030, 0, 1) + d * 86_400_000).toISOString());

/** A valid verification config whose free-form parts vary: prompts and a model's extra JSON-free text. */
const config = fc.record({ answerPrompt: text, judgePrompt: text, replicates: fc.integer({ min: 1, max: 5 }) }).map((v) => ({
  answering_models: [{ ...fakeModel("answerer", "fuzz-answerer"), system_prompt: v.answerPrompt }],
  parsing_models: [{ ...fakeModel("judge", "fuzz-judge"), system_prompt: v.judgePrompt }],
  replicate_count: v.replicates,
}));

/** budget_usd needs a price for every model. */
const FAKE_PRICES = {
  "openai_compatible:fuzz-answerer": { input_per_mtok: 1, output_per_mtok: 1 },
  "openai_compatible:fuzz-judge": { input_per_mtok: 1, output_per_mtok: 1 },
};

/** JSON of every key sent equals the JSON of that key read. */
function expectSameParts(sent: Record<string, unknown>, read: Record<string, unknown>, label: string, writeOnly: string[] = []) {
  for (const [k, v] of Object.entries(sent))
    if (!writeOnly.includes(k)) expect(JSON.stringify(read[k]), `${label}: ${k}`).toBe(JSON.stringify(v));
}

interface Readback {
  body: fc.Arbitrary<Record<string, unknown>>;
  /** Stores `body`, answers what GET reads (the part compared with `body`). */
  storeAndRead: (body: Record<string, unknown>) => Promise<Record<string, unknown>>;
  runs?: number;
  /** Parts that are never read back by design (a secret's value). */
  writeOnly?: string[];
}

let t: TestTenant;
let benchmarkId: string;
const as = (path: string, init: RequestInit & { json?: unknown } = {}) => apiAs(t.key, path, init);

async function ok(res: Response, status: number | number[], what: string): Promise<any> {
  const text = await res.text();
  if (![status].flat().includes(res.status)) throw new Error(`${what}: ${res.status} ${text.slice(0, 400)}`);
  return JSON.parse(text);
}

const tenantBody = fc.record({
  name: text,
  use_deployment_keys: fc.boolean(),
  retention_days: fc.option(fc.integer({ min: 1, max: 36_500 }), { nil: null }),
  limits: fc.record(
    { requests_per_minute: fc.integer({ min: 1, max: 1_000_000 }), jobs_per_run: fc.integer({ min: 1, max: 10_000_000 }) },
    { requiredKeys: [] },
  ),
});

/** A stored judge whose free-form parts vary; its prompt has no braces, so no text is read as a placeholder. */
const storedJudge = fc
  .record({
    name: text,
    description: fc.option(text, { nil: null }),
    prompt: text.filter((p) => !/[{}]/.test(p)),
    mapping: fc.record(
      { input: text, reference: text, vars: fc.dictionary(fc.stringMatching(/^[a-z_]\w{0,10}$/), text, { maxKeys: 3 }) },
      { requiredKeys: [] },
    ),
    deadline_ms: fc.integer({ min: 1, max: 120_000 }),
  })
  .map(({ prompt, ...rest }) => ({
    ...rest,
    config: {
      type: "judge",
      // Every mapped var is read: a mapping.vars entry no prompt reads is refused (stored-judges.test.ts).
      prompt:
        prompt +
        Object.keys(rest.mapping.vars ?? {})
          .map((k) => ` {{vars.${k}}}`)
          .join(""),
      scale: { type: "continuous", min: 0, max: 1 },
      provider: fakeModel("j", "fuzz-judge"),
    },
  }));

const READBACK: Record<string, Readback> = {
  "POST /v1/admin/tenants": {
    body: tenantBody,
    storeAndRead: async (b) => {
      const created = await ok(await apiAs(ADMIN_TOKEN, "/v1/admin/tenants", { method: "POST", json: b }), 201, "create tenant");
      return (await ok(await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${created.tenant.tenant_id}`), 200, "read tenant")).tenant;
    },
    runs: 100,
  },
  "PATCH /v1/admin/tenants/:id": {
    // At least one field: an empty PATCH is a 400 (it would change nothing).
    body: fc
      .record(
        { name: text, retention_days: fc.option(fc.integer({ min: 1, max: 36_500 }), { nil: null }), disabled: fc.boolean() },
        { requiredKeys: [] },
      )
      .filter((b) => Object.keys(b).length > 0),
    storeAndRead: async (b) => {
      const created = await ok(
        await apiAs(ADMIN_TOKEN, "/v1/admin/tenants", { method: "POST", json: { name: "patched" } }),
        201,
        "create tenant",
      );
      const id = created.tenant.tenant_id;
      await ok(await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${id}`, { method: "PATCH", json: b }), 200, "patch tenant");
      return (await ok(await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${id}`), 200, "read tenant")).tenant;
    },
    runs: 100,
  },
  "POST /v1/keys": {
    body: fc.record({
      name: text,
      scopes: fc.uniqueArray(fc.constantFrom("runs:read", "runs:write", "benchmarks:read", "judge", "webhooks:read"), { minLength: 1 }),
      expires_at: isoFuture,
    }),
    storeAndRead: async (b) => {
      const created = await ok(await as("/v1/keys", { method: "POST", json: b }), 201, "create key");
      const { keys } = await ok(await as("/v1/keys"), 200, "list keys");
      return keys.find((k: { key_id: string }) => k.key_id === created.key_id);
    },
  },
  "POST /v1/admin/tenants/:id/keys": {
    body: fc.record({
      name: text,
      scopes: fc.uniqueArray(fc.constantFrom("runs:read", "keys:admin", "benchmarks:read", "judge", "webhooks:read"), { minLength: 1 }),
      expires_at: isoFuture,
    }),
    storeAndRead: async (b) => {
      const created = await ok(
        await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}/keys`, { method: "POST", json: b }),
        201,
        "issue key",
      );
      const { keys } = await ok(await as("/v1/keys"), 200, "list keys");
      return keys.find((k: { key_id: string }) => k.key_id === created.key_id);
    },
  },
  "PUT /v1/secrets/:name": {
    // The value is write-only by design (never read back); everything else about the secret is.
    body: fc.record({
      // A key as issued: printable ASCII, no space at either end (PUT refuses anything else).
      value: fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,40}[\x21-\x7e])?$/),
      interface: fc.constantFrom("openai", "anthropic", "openai_compatible"),
      origins: fc.uniqueArray(
        fc.stringMatching(/^[a-z]{1,12}$/).map((h) => `https://${h}.example.com`),
        { maxLength: 3 },
      ),
      limits: fc.record(
        { rpm: fc.integer({ min: 1, max: 100_000 }), concurrency: fc.integer({ min: 1, max: 1000 }) },
        { requiredKeys: [] },
      ),
    }),
    writeOnly: ["value"],
    storeAndRead: async (b) => {
      await ok(await as("/v1/secrets/FUZZ_READBACK", { method: "PUT", json: b }), [200, 201], "put secret");
      const { secrets } = await ok(await as("/v1/secrets"), 200, "list secrets");
      const got = secrets.find((s: { name: string }) => s.name === "FUZZ_READBACK");
      return got;
    },
  },
  "POST /v1/runs": {
    body: fc.record({ name: text, budget_usd: fc.integer({ min: 1, max: 10_000 }) }),
    storeAndRead: async (b) => {
      const created = await ok(
        await as("/v1/runs", {
          method: "POST",
          json: {
            benchmark_id: benchmarkId,
            config: { ...fc.sample(config, 1)[0], replicate_count: 1 },
            run_name: b.name,
            budget_usd: b.budget_usd,
            prices: FAKE_PRICES,
          },
        }),
        202,
        "submit run",
      );
      const view = await ok(await as(`/v1/runs/${created.run_id}`), 200, "read run");
      await as(`/v1/runs/${created.run_id}/cancel`, { method: "POST" });
      return { name: view.run_name, budget_usd: view.budget_usd };
    },
    runs: 25,
  },
  "POST /v1/webhook-endpoints": {
    body: fc.record({
      url: fc.stringMatching(/^[a-z0-9]{1,20}$/).map((p) => `https://hooks.example.com/${p}`),
      description: text,
      event_types: fc.uniqueArray(fc.constantFrom("run.completed", "run.partial", "run.failed", "run.cancelled", "result.created"), {
        minLength: 1,
      }),
      all_runs: fc.boolean(),
      enabled: fc.boolean(),
    }),
    storeAndRead: async (b) => {
      const created = await ok(await as("/v1/webhook-endpoints", { method: "POST", json: b }), 201, "create endpoint");
      const got = await ok(await as(`/v1/webhook-endpoints/${created.endpoint_id}`), 200, "read endpoint");
      await as(`/v1/webhook-endpoints/${created.endpoint_id}`, { method: "DELETE" }); // 20 per tenant at most
      return got;
    },
  },
  "PATCH /v1/webhook-endpoints/:id": {
    body: fc.record(
      { description: text, all_runs: fc.boolean(), enabled: fc.boolean(), event_types: fc.constant(["run.failed"]) },
      { requiredKeys: ["description"] },
    ),
    storeAndRead: async (b) => {
      const created = await ok(
        await as("/v1/webhook-endpoints", { method: "POST", json: { url: "https://hooks.example.com/patched" } }),
        201,
        "create endpoint",
      );
      await ok(await as(`/v1/webhook-endpoints/${created.endpoint_id}`, { method: "PATCH", json: b }), 200, "patch endpoint");
      const got = await ok(await as(`/v1/webhook-endpoints/${created.endpoint_id}`), 200, "read endpoint");
      await as(`/v1/webhook-endpoints/${created.endpoint_id}`, { method: "DELETE" });
      return got;
    },
  },
  "POST /v1/triggers": {
    body: fc.record({
      name: text,
      config,
      signing: fc.constantFrom({ scheme: "standard_webhooks" }, { scheme: "github" }, { scheme: "hex_header", header: "X-Fuzz-Signature" }),
      mapping: fc.record(
        { run_name: fc.oneof(fc.record({ literal: text }), fc.constant({ pointer: "/a/0/b~1c" })), question_ids: fc.constant("/ids") },
        { requiredKeys: [] },
      ),
    }),
    storeAndRead: async (b) => {
      const created = await ok(
        await as("/v1/triggers", { method: "POST", json: { ...b, benchmark_id: benchmarkId } }),
        201,
        "create trigger",
      );
      const got = await ok(await as(`/v1/triggers/${created.trigger_id}`), 200, "read trigger");
      await as(`/v1/triggers/${created.trigger_id}`, { method: "DELETE" });
      return got;
    },
  },
  "POST /v1/presets": {
    body: fc.record({ name: text, description: fc.option(text, { nil: null }), config }),
    storeAndRead: async (b) => {
      const created = await ok(await as("/v1/presets", { method: "POST", json: b }), 201, "create preset");
      return ok(await as(`/v1/presets/${created.preset_id}`), 200, "read preset");
    },
  },
  "POST /v1/judges": {
    body: storedJudge,
    storeAndRead: async (b) => {
      const created = await ok(await as("/v1/judges", { method: "POST", json: b }), 201, "store judge");
      return ok(await as(`/v1/judges/${created.judge_id}`), 200, "read judge");
    },
  },
  "PUT /v1/judges/:id": {
    body: storedJudge,
    storeAndRead: async (b) => {
      const created = await ok(await as("/v1/judges", { method: "POST", json: fc.sample(storedJudge, 1)[0] }), 201, "store judge");
      await ok(await as(`/v1/judges/${created.judge_id}`, { method: "PUT", json: b }), 200, "replace judge");
      return ok(await as(`/v1/judges/${created.judge_id}`), 200, "read judge");
    },
  },
  "POST /v1/judges/:id/tokens": {
    body: fc.record({ name: text }),
    storeAndRead: async (b) => {
      const judge = await ok(await as("/v1/judges", { method: "POST", json: fc.sample(storedJudge, 1)[0] }), 201, "store judge");
      const minted = await ok(await as(`/v1/judges/${judge.judge_id}/tokens`, { method: "POST", json: b }), 201, "mint token");
      const { tokens } = await ok(await as(`/v1/judges/${judge.judge_id}/tokens`), 200, "list tokens");
      return tokens.find((t: { token_id: string }) => t.token_id === minted.token_id);
    },
  },
  "PUT /v1/presets/:id": {
    body: fc.record({ name: text, description: fc.option(text, { nil: null }), config }),
    storeAndRead: async (b) => {
      const created = await ok(
        await as("/v1/presets", { method: "POST", json: { config: fc.sample(config, 1)[0] } }),
        201,
        "create preset",
      );
      await ok(await as(`/v1/presets/${created.preset_id}`, { method: "PUT", json: b }), 200, "replace preset");
      return ok(await as(`/v1/presets/${created.preset_id}`), 200, "read preset");
    },
  },
  "POST /v1/schedules": {
    body: fc.record({ name: text, cron: fc.constantFrom("0 3 * * *", "*/5 * * * 1-5", "17 4 1 * *"), config, enabled: fc.boolean() }),
    storeAndRead: async (b) => {
      const created = await ok(
        await as("/v1/schedules", { method: "POST", json: { ...b, benchmark_id: benchmarkId } }),
        201,
        "create schedule",
      );
      const got = await ok(await as(`/v1/schedules/${created.schedule_id}`), 200, "read schedule");
      await as(`/v1/schedules/${created.schedule_id}`, { method: "DELETE" });
      return got;
    },
    runs: 100,
  },
  "PATCH /v1/schedules/:id": {
    body: fc.record({ name: text, config, enabled: fc.boolean() }, { requiredKeys: ["name"] }),
    storeAndRead: async (b) => {
      const created = await ok(
        await as("/v1/schedules", {
          method: "POST",
          json: { name: "patched", cron: "0 3 * * *", benchmark_id: benchmarkId, config: fc.sample(config, 1)[0] },
        }),
        201,
        "create schedule",
      );
      await ok(await as(`/v1/schedules/${created.schedule_id}`, { method: "PATCH", json: b }), 200, "patch schedule");
      const got = await ok(await as(`/v1/schedules/${created.schedule_id}`), 200, "read schedule");
      await as(`/v1/schedules/${created.schedule_id}`, { method: "DELETE" });
      return got;
    },
    runs: 100,
  },
};

describe("valid bodies read back byte-identical, route by route", () => {
  beforeAll(async () => {
    t = await createTenant({ name: "fuzz readback", limits: { requests_per_minute: 1_000_000, concurrent_runs: 100_000 } });
    const res = await as("/v1/benchmarks", {
      method: "POST",
      json: { name: "fuzz", questions: [{ id: "q1", question: "Q?", raw_answer: "A" }] },
    });
    benchmarkId = (await ok(res, 201, "store benchmark")).benchmark_id;
  });

  it("every write route of app.routes says how its body reads back, or why there is none", () => {
    const unaccounted = writeRoutes.filter((r) => !(r in READBACK) && !(r in NO_STORED_BODY));
    expect(unaccounted, "add these to READBACK (a valid body and its readback) or NO_STORED_BODY (why not) in this file").toEqual([]);
    const stale = [...Object.keys(READBACK), ...Object.keys(NO_STORED_BODY)].filter((r) => !writeRoutes.includes(r));
    expect(stale, "routes listed here that app.routes no longer has").toEqual([]);
  });

  it.each(Object.keys(READBACK))(
    "%s: valid bodies are 2xx and every part reads back as sent",
    async (route) => {
      const { body, storeAndRead, runs, writeOnly } = READBACK[route]!;
      await fc.assert(
        fc.asyncProperty(body, async (b) => expectSameParts(b, await storeAndRead(b), route, writeOnly)),
        { numRuns: runs ?? 150 },
      );
    },
    240_000,
  );
});
