/**
 * Issue 18 item 4 inside workerd: /v1/judges stores a compound judge; POST /v1/judges/:id/promptfoo
 * grades promptfoo's `{output, context: {prompt, vars}}` with it, authenticated by a judge token
 * (stored hashed, revocable, scoped to its judge), and answers 502 — never `pass: false` — when
 * the judge cannot decide. promptfoo itself drives the README's example in test/e2e/promptfoo.test.ts.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { addFakeRules, api, fakeModel, fakeStats, uniqueModel } from "./helpers";
import { apiAs, createKey, createTenant } from "./tenant-helpers";

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });

/** A judge scoring 0..1 whether the output names the reference, which promptfoo's `expected` var holds. */
function capitalJudge(model: string, extra: Record<string, unknown> = {}) {
  return {
    name: "capitals",
    config: {
      type: "judge",
      prompt: "Topic: {{vars.topic}}. Reference: <<{{reference}}>>. Does the answer name the reference city?",
      scale: { type: "continuous", min: 0, max: 1 },
      threshold: 0.5,
      provider: fakeModel("j", model),
      retries: 1,
    },
    mapping: { reference: "expected", vars: { topic: "subject" } },
    ...extra,
  };
}

async function storeJudge(body: unknown, key?: string) {
  const res = key
    ? await apiAs(key, "/v1/judges", { method: "POST", json: body })
    : await api("/v1/judges", { method: "POST", json: body });
  const out = await json(res);
  if (out.status !== 201) throw new Error(`judge not stored: ${out.status} ${JSON.stringify(out.body)}`);
  return out.body as { judge_id: string; promptfoo_url: string };
}

async function mintToken(judgeId: string, key?: string) {
  const init = { method: "POST", json: { name: "ci" } };
  const out = await json(key ? await apiAs(key, `/v1/judges/${judgeId}/tokens`, init) : await api(`/v1/judges/${judgeId}/tokens`, init));
  expect(out.status).toBe(201);
  return out.body as { token_id: string; token: string; promptfoo_url: string };
}

/** What promptfoo's webhook assertion sends: only Content-Type, no Authorization. */
function promptfooCall(url: string, output: unknown, vars: Record<string, unknown>, prompt = "What is the capital?") {
  return fetchNoAuth(url, { output, context: { prompt, vars } });
}

function fetchNoAuth(url: string, body: unknown) {
  return exports.default.fetch(`http://edgeval.test${url}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

const rowCount = async (table: string) => (await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first<{ n: number }>())!.n;

describe("/v1/judges", () => {
  it("stores, lists, reads, replaces and deletes a judge; the view names its promptfoo URL", async () => {
    const model = uniqueModel("sj-crud");
    const stored = await storeJudge(capitalJudge(model));
    expect(stored.judge_id).toMatch(/^jdg_/);
    expect(stored).toMatchObject({
      promptfoo_url: `/v1/judges/${stored.judge_id}/promptfoo`,
      deadline_ms: 4000,
      mapping: { reference: "expected" },
    });
    expect((await json(await api(`/v1/judges/${stored.judge_id}`))).body).toEqual(stored);
    expect((await json(await api("/v1/judges"))).body.judges.map((j: any) => j.judge_id)).toContain(stored.judge_id);
    const replaced = await json(
      await api(`/v1/judges/${stored.judge_id}`, { method: "PUT", json: { ...capitalJudge(model), name: "renamed", deadline_ms: 2500 } }),
    );
    expect(replaced).toMatchObject({
      status: 200,
      body: { judge_id: stored.judge_id, name: "renamed", deadline_ms: 2500, created_at: (stored as any).created_at },
    });
    const token = await mintToken(stored.judge_id);
    expect((await json(await api(`/v1/judges/${stored.judge_id}`, { method: "DELETE" }))).body).toEqual({
      judge_id: stored.judge_id,
      deleted: true,
    });
    expect((await api(`/v1/judges/${stored.judge_id}`)).status).toBe(404);
    // Its tokens went with it.
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM judge_tokens WHERE token_id = ?").bind(token.token_id).first("n")).toBe(0);
    expect((await promptfooCall(token.promptfoo_url, "Paris", { expected: "Paris", subject: "geo" })).status).toBe(401);
    expect((await fakeStats(model)).total).toBe(0);
  });

  it("checks the config as POST /v1/judge does, with the placeholders its mapping promises, and writes nothing when refused", async () => {
    const model = uniqueModel("sj-400");
    const before = await rowCount("stored_judges");
    const bad = await json(
      await api("/v1/judges", {
        method: "POST",
        json: { ...capitalJudge(model), config: { ...capitalJudge(model).config, scael: [0, 1] } },
      }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0].path).toBe("config.scael");
    // {{reference}} with no reference var mapped, and {{vars.topic}} that the explicit vars mapping does not give.
    const noReference = await json(
      await api("/v1/judges", { method: "POST", json: { ...capitalJudge(model), mapping: { vars: { other: "subject" } } } }),
    );
    expect(noReference.status).toBe(400);
    expect(noReference.body.error.issues).toEqual([
      { path: "config.prompt", message: "uses {{vars.topic}}, which this request does not give" },
      { path: "config.prompt", message: "uses {{reference}}, which this request does not give" },
    ]);
    const tooSlow = await json(await api("/v1/judges", { method: "POST", json: { ...capitalJudge(model), deadline_ms: 600_000 } }));
    expect(tooSlow.body.error.issues[0].path).toBe("deadline_ms");
    expect(await rowCount("stored_judges")).toBe(before);
    expect((await fakeStats(model)).total).toBe(0);
  });

  it("refuses a mapped var no prompt or option reads: promptfoo tests had to set it, for nothing", async () => {
    // Before 8 Dec it was stored, and every promptfoo test lacking the var got a 400 for a var the judge never read.
    const model = uniqueModel("sj-unread");
    const before = await rowCount("stored_judges");
    const judge = capitalJudge(model);
    const res = await json(
      await api("/v1/judges", {
        method: "POST",
        json: { ...judge, mapping: { ...judge.mapping, vars: { topic: "subject", tone: "style" } } },
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.issues).toEqual([
      {
        path: "mapping.vars.tone",
        message:
          'no prompt or option of this judge reads {{vars.tone}}, so test var "style" would be required for nothing; remove it or use it',
      },
    ]);
    expect(await rowCount("stored_judges")).toBe(before);
  });

  it("refuses at store time a model base_url POST /v1/judge would refuse (a private address), nothing written; a key not set yet is no reason to refuse", async () => {
    const model = uniqueModel("sj-base-url");
    const before = await rowCount("stored_judges");
    const judge = capitalJudge(model);
    const privateUrl = { ...judge, config: { ...judge.config, provider: { ...judge.config.provider, base_url: "http://10.1.2.3/v1" } } };
    const direct = await json(
      await api("/v1/judge", {
        method: "POST",
        json: { config: privateUrl.config, output: "Paris", reference: "Paris", vars: { topic: "capitals" } },
      }),
    );
    expect(direct.status).toBe(400);
    const stored = await json(await api("/v1/judges", { method: "POST", json: privateUrl }));
    expect(stored.status).toBe(400);
    expect(stored.body.error.issues).toEqual(direct.body.error.issues);
    expect(await rowCount("stored_judges")).toBe(before);
    // A key the tenant has not set yet may be set before promptfoo calls: stored, as a dry run would warn, not refuse.
    const keyLater = {
      ...judge,
      config: {
        ...judge.config,
        provider: { id: "j", interface: "openai", model_name: "gpt-4.1-mini", api_key_secret: "LATER_OPENAI_KEY" },
      },
    };
    const later = await json(await api("/v1/judges", { method: "POST", json: keyLater }));
    expect(later.status, JSON.stringify(later.body)).toBe(201);
  });

  it("needs judges:write to store or mint a token and judges:read to look", async () => {
    const t = await createTenant();
    const reader = await createKey(t.key, { scopes: ["judges:read"] });
    const judgeOnly = await createKey(t.key, { scopes: ["judge"] });
    const stored = await storeJudge(capitalJudge(uniqueModel("sj-scope")), t.key);
    expect((await apiAs(reader.key, "/v1/judges", { method: "POST", json: capitalJudge("m") })).status).toBe(403);
    expect((await apiAs(reader.key, `/v1/judges/${stored.judge_id}/tokens`, { method: "POST", json: {} })).status).toBe(403);
    expect((await apiAs(reader.key, `/v1/judges/${stored.judge_id}`)).status).toBe(200);
    expect((await apiAs(judgeOnly.key, `/v1/judges/${stored.judge_id}`)).status).toBe(403);
  });

  it("mints no token that outlives an expiring key: past its expiry or null is a 403 writing nothing, left out it gets the key's", async () => {
    const t = await createTenant();
    const hour = 3_600_000;
    const limited = await createKey(t.key, {
      scopes: ["judges:write", "judges:read"],
      expires_at: new Date(Date.now() + hour).toISOString(),
    });
    const until = ((await (await apiAs(t.key, "/v1/keys?limit=1")).json()) as any).keys[0].expires_at as string;
    const stored = await storeJudge(capitalJudge(uniqueModel("sj-lifetime")), t.key);
    const tokens = `/v1/judges/${stored.judge_id}/tokens`;
    for (const expires_at of [new Date(Date.now() + 2 * hour).toISOString(), null]) {
      const res = await json(await apiAs(limited.key, tokens, { method: "POST", json: { expires_at } }));
      expect(res.status, String(expires_at)).toBe(403);
      expect(res.body.error.message).toContain(until);
    }
    expect(((await json(await apiAs(t.key, tokens))).body as any).tokens).toEqual([]);
    expect((await json(await apiAs(limited.key, tokens, { method: "POST", json: {} }))).body.expires_at).toBe(until);
    const sooner = new Date(Date.now() + hour / 2).toISOString();
    expect((await json(await apiAs(limited.key, tokens, { method: "POST", json: { expires_at: sooner } }))).body.expires_at).toBe(sooner);
    // A key without an expiry mints a token that never expires, as before.
    expect((await json(await apiAs(t.key, tokens, { method: "POST", json: {} }))).body.expires_at).toBeNull();
  });
});

describe("POST /v1/judges/:id/promptfoo", () => {
  it("grades promptfoo's body with the judge: pass, score and reason from it, vars mapped to reference and vars", async () => {
    const model = uniqueModel("sj-grade");
    await addFakeRules([
      { match: { model, contains: "Topic: geography. Reference: <<Paris>>" }, reply: { json: { answer: 0.9 } } },
      { match: { model, contains: "Topic: geography. Reference: <<Rome>>" }, reply: { json: { answer: 0.1 } } },
    ]);
    const stored = await storeJudge(capitalJudge(model));
    const { token, promptfoo_url } = await mintToken(stored.judge_id);
    expect(token).toMatch(/^jt_[0-9a-f]{12}_[a-z2-7]{32}$/);
    expect(promptfoo_url).toBe(`/v1/judges/${stored.judge_id}/promptfoo?token=${token}`);

    const passed = await json(await promptfooCall(promptfoo_url, "Paris", { expected: "Paris", subject: "geography" }));
    expect(passed).toEqual({ status: 200, body: { pass: true, score: 0.9, reason: expect.any(String) } });
    const failed = await json(await promptfooCall(promptfoo_url, "Milan", { expected: "Rome", subject: "geography" }));
    expect(failed).toEqual({ status: 200, body: { pass: false, score: 0.1, reason: expect.any(String) } });
    // The output and the mapped vars reached the judge's prompt.
    const sent = (await (await fetch(`${env.FAKE_LLM_URL}/_admin/requests?model=${model}`)).json()) as {
      requests: { body: { messages: unknown[] } }[];
    };
    const prompts = sent.requests.map((r) => JSON.stringify(r.body.messages));
    expect(prompts).toHaveLength(2);
    expect(prompts.filter((p) => p.includes("Milan") && p.includes("<<Rome>>"))).toHaveLength(1);
  });

  it("keeps the token in one answer only: D1 holds its HMAC, the listing never shows it, and it lives under its own judge", async () => {
    const stored = await storeJudge(capitalJudge(uniqueModel("sj-hash")));
    const minted = await mintToken(stored.judge_id);
    const row = await env.DB.prepare("SELECT * FROM judge_tokens WHERE token_id = ?")
      .bind(minted.token_id)
      .first<Record<string, unknown>>();
    expect(row).toMatchObject({ judge_id: stored.judge_id, tenant_id: "default", revoked_at: null });
    expect(row!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(minted.token.split("_")[2]);
    const listed = await api(`/v1/judges/${stored.judge_id}/tokens`);
    const text = await listed.text();
    expect(JSON.parse(text).tokens).toEqual([
      {
        token_id: minted.token_id,
        judge_id: stored.judge_id,
        name: "ci",
        created_at: expect.any(String),
        revoked_at: null,
        expires_at: null,
        last_used_at: null,
      },
    ]);
    expect(text).not.toContain(minted.token.split("_")[2]);
  });

  it("audits deleting a judge, which ends its tokens: judge.deleted with how many were live", async () => {
    const t = await createTenant({ name: "judge deletion audit" });
    const model = uniqueModel("sj-delete");
    await addFakeRules([{ match: { model }, reply: { json: { answer: 1 } } }]);
    const judge = await storeJudge(capitalJudge(model), t.key);
    const [live, revoked] = [await mintToken(judge.judge_id, t.key), await mintToken(judge.judge_id, t.key)];
    expect((await apiAs(t.key, `/v1/judges/${judge.judge_id}/tokens/${revoked.token_id}`, { method: "DELETE" })).status).toBe(200);
    expect((await apiAs(t.key, `/v1/judges/${judge.judge_id}`, { method: "DELETE" })).status).toBe(200);
    expect((await promptfooCall(live.promptfoo_url, "Paris", { expected: "Paris", subject: "geography" })).status).toBe(401);
    const { body } = await json(await apiAs(t.key, "/v1/audit?limit=1"));
    expect(body.entries).toEqual([
      expect.objectContaining({ action: "judge.deleted", target: judge.judge_id, detail: { name: "capitals", live_tokens: 1 } }),
    ]);
  });

  it("refuses with 401 and no model call: no token, a wrong secret, another judge's token, a revoked token", async () => {
    const model = uniqueModel("sj-401");
    await addFakeRules([{ match: { model }, reply: { json: { answer: 1 } } }]);
    const one = await storeJudge(capitalJudge(model));
    const two = await storeJudge(capitalJudge(model));
    const tokenOne = await mintToken(one.judge_id);
    const tokenTwo = await mintToken(two.judge_id);
    const vars = { expected: "Paris", subject: "geography" };
    const status = async (url: string) => {
      const res = await promptfooCall(url, "Paris", vars);
      const body = (await res.json()) as any;
      return res.status === 200 ? 200 : `${res.status} ${body.error.code}`;
    };
    expect(await status(one.promptfoo_url)).toBe("401 unauthorized");
    const [, id] = tokenOne.token.split("_");
    expect(await status(`${one.promptfoo_url}?token=jt_${id}_${"a".repeat(32)}`)).toBe("401 unauthorized");
    expect(await status(`${one.promptfoo_url}?token=${tokenTwo.token}`)).toBe("401 unauthorized");
    // An API key is not a judge token.
    expect(await status(`${one.promptfoo_url}?token=test-token`)).toBe("401 unauthorized");
    expect((await fakeStats(model)).total).toBe(0);

    expect(await status(tokenOne.promptfoo_url)).toBe(200);
    const revoked = await json(await api(`/v1/judges/${one.judge_id}/tokens/${tokenOne.token_id}`, { method: "DELETE" }));
    expect(revoked.body).toMatchObject({ token_id: tokenOne.token_id, revoked_at: expect.any(String) });
    // Revoking again: the same answer, the first revocation's time, and no second audit entry.
    const again = await json(await api(`/v1/judges/${one.judge_id}/tokens/${tokenOne.token_id}`, { method: "DELETE" }));
    expect(again).toEqual({ status: 200, body: revoked.body });
    const audit = (await json(await api("/v1/audit?limit=100"))).body.entries as { action: string; target: string }[];
    expect(audit.filter((e) => e.action === "judge_token.revoked" && e.target === tokenOne.token_id)).toHaveLength(1);
    const refused = await promptfooCall(tokenOne.promptfoo_url, "Paris", vars);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as any).error.message).toContain("revoked");
    expect((await fakeStats(model)).total).toBe(1);
    // The other judge's token still works.
    expect(await status(tokenTwo.promptfoo_url)).toBe(200);
  });

  it("an expiring token grades until its expires_at, then is a 401 that says it expired, with no model call", async () => {
    const model = uniqueModel("sj-expiry");
    await addFakeRules([{ match: { model }, reply: { json: { answer: 1 } } }]);
    const judge = await storeJudge(capitalJudge(model));
    const mint = (json: unknown) => api(`/v1/judges/${judge.judge_id}/tokens`, { method: "POST", json });
    // A time already past, or not a time, is a 400 at the field, and no token is written.
    const before = await rowCount("judge_tokens");
    for (const expires_at of ["2020-01-01T00:00:00Z", "tomorrow"]) {
      const bad = await json(await mint({ expires_at }));
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain("expires_at");
    }
    expect(await rowCount("judge_tokens")).toBe(before);

    const expiresAt = new Date(Date.now() + 3600_000).toISOString();
    const minted = await json(await mint({ name: "ci", expires_at: expiresAt.replace("Z", "+00:00") }));
    expect(minted.status).toBe(201);
    expect(minted.body.expires_at).toBe(expiresAt);
    const vars = { expected: "Paris", subject: "geography" };
    expect((await promptfooCall(minted.body.promptfoo_url, "Paris", vars)).status).toBe(200);
    const listed = (await json(await api(`/v1/judges/${judge.judge_id}/tokens`))).body.tokens;
    expect(listed).toEqual([expect.objectContaining({ token_id: minted.body.token_id, expires_at: expiresAt })]);

    // Its time comes (moved into the past in D1 rather than waited for).
    await env.DB.prepare("UPDATE judge_tokens SET expires_at = ? WHERE token_id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), minted.body.token_id)
      .run();
    const refused = await promptfooCall(minted.body.promptfoo_url, "Paris", vars);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as any).error.message).toMatch(/expired.*POST \/v1\/judges\/:id\/tokens/);
    expect((await fakeStats(model)).total).toBe(1);
    // Deleting the judge ends no live token: the expired one no longer counts.
    expect((await api(`/v1/judges/${judge.judge_id}`, { method: "DELETE" })).status).toBe(200);
    const audit = (await json(await api("/v1/audit?limit=100"))).body.entries as { action: string; target: string; detail: any }[];
    expect(audit.find((e) => e.action === "judge.deleted" && e.target === judge.judge_id)?.detail).toMatchObject({ live_tokens: 0 });
  });

  it("answers 502 judge_undecided when the judge cannot decide — a failing model, or the deadline — never pass: false", async () => {
    const [down, slow] = [uniqueModel("sj-down"), uniqueModel("sj-slow")];
    await addFakeRules([
      { match: { model: down }, reply: { fault: "500" } },
      { match: { model: slow }, reply: { fault: "hang" } },
    ]);
    const vars = { expected: "Paris", subject: "geography" };
    for (const [model, deadline_ms, kind] of [
      [down, 4000, "server_error"],
      [slow, 300, "timeout"],
    ] as const) {
      const stored = await storeJudge(capitalJudge(model, { deadline_ms }));
      const { promptfoo_url } = await mintToken(stored.judge_id);
      const res = await json(await promptfooCall(promptfoo_url, "Paris", vars));
      expect(res.status).toBe(502);
      expect(res.body).toEqual({
        error: { code: "judge_undecided", message: expect.stringContaining(kind), request_id: expect.any(String) },
      });
      expect(JSON.stringify(res.body)).not.toContain('"pass"');
    }
  });

  it("names a test var the mapping needs but promptfoo did not send (400, no model call); other vars pass through by name", async () => {
    const model = uniqueModel("sj-vars");
    await addFakeRules([{ match: { model, contains: "rubric: be brief" }, reply: { json: { answer: 1 } } }]);
    const stored = await storeJudge(capitalJudge(model));
    const { promptfoo_url } = await mintToken(stored.judge_id);
    const missing = await json(await promptfooCall(promptfoo_url, "Paris", { subject: "geography" }));
    expect(missing.status).toBe(400);
    expect(missing.body.error.issues).toEqual([
      { path: "context.vars.expected", message: expect.stringContaining('the test var "expected"') },
    ]);
    expect((await fakeStats(model)).total).toBe(0);
    // No vars mapping: every test var is the judge's var of the same name; input is the prompt.
    const passThrough = await storeJudge({
      name: "pass-through",
      config: {
        type: "judge",
        prompt: "{{input}} / rubric: {{vars.rubric}} / {{output}}",
        scale: { type: "continuous", min: 0, max: 1 },
        provider: fakeModel("j", model),
      },
    });
    const token = await mintToken(passThrough.judge_id);
    const graded = await json(await promptfooCall(token.promptfoo_url, "Paris", { rubric: "be brief" }, "Capital of France?"));
    expect(graded).toEqual({ status: 200, body: { pass: true, score: 1, reason: expect.any(String) } });
    expect((await fakeStats(model)).total).toBe(1);
    // Without a vars mapping, a test lacking a var the prompt reads is named at context.vars, not at
    // the stored config's path (promptfoo's body has no config): before 8 Dec it read "config.prompt".
    const lacking = await json(await promptfooCall(token.promptfoo_url, "Paris", { rules: "be brief" }));
    expect(lacking.status).toBe(400);
    expect(lacking.body.error.issues).toEqual([
      {
        path: "context.vars.rubric",
        message: expect.stringMatching(/\{\{vars\.rubric\}\} from the test var "rubric", which this test does not set/),
      },
    ]);
    expect((await fakeStats(model)).total).toBe(1);
  });
});
