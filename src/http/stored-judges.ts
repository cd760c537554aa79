/**
 * /v1/judges (src/stored-judges/README.md): a tenant's stored compound judges and their promptfoo
 * tokens. A judge is checked when stored as POST /v1/judge checks one (config paths, the calls
 * one request may make), with the placeholders its mapping promises. Scopes: judges:write to
 * change a judge or mint and revoke its tokens (a token spends the tenant's model calls),
 * judges:read to look. The token is in the answer that mints it and nowhere else.
 */
import { type Context, Hono } from "hono";
import { ListQuery } from "../schemas/api";
import { JUDGE_BODY_LIMIT, JUDGE_TOKEN_BODY_LIMIT } from "../schemas/body-limits";
import { CreateJudgeTokenRequest, StoredJudgeRequest } from "../schemas/stored-judges";
import {
  DeletedStoredJudge,
  JudgeTokenList,
  JudgeTokenView,
  MintedJudgeToken,
  StoredJudgeList,
  StoredJudgeView,
} from "../schemas/stored-judge-views";
import {
  deleteStoredJudge,
  getStoredJudge,
  listStoredJudges,
  mintJudgeId,
  promptfooPath,
  putStoredJudge,
  type StoredJudgeRecord,
  storedJudgeView,
} from "../stored-judges/judges-repo";
import { promisedSample, unreadMappedVars } from "../stored-judges/promptfoo";
import {
  getJudgeToken,
  insertJudgeToken,
  judgeTokenView,
  listJudgeTokens,
  liveJudgeTokens,
  mintJudgeToken,
  revokeJudgeToken,
} from "../stored-judges/tokens-repo";
import { actorOf, auditIfChanged, auditStatement } from "../tenants/audit";
import { futureExpiry } from "./keys";
import { withinLifetime } from "./credential-lifetime";
import { type AppEnv, requireScope, stringVar, tenantOf } from "./auth";
import { readJson, readOptionalJson, validate, validateQuery } from "./body";
import { decodeCreatedCursor, nextCreatedCursor } from "./cursor";
import { ApiFailure, invalidBody } from "./errors";
import { judgeGraph, refuseUncallableModels } from "./judge";
import { reply } from "./reply";

export const storedJudges = new Hono<AppEnv>();

/** The body checked; the judge's parts kept as sent, so they read back exactly as written. */
async function readJudge(c: Context<AppEnv>): Promise<{ body: StoredJudgeRequest; spec: StoredJudgeRecord["spec"] }> {
  const raw = (await readJson(c, JUDGE_BODY_LIMIT)).value as Record<string, Record<string, unknown>>;
  const body = validate(StoredJudgeRequest, raw);
  const graph = judgeGraph(body.config, promisedSample(body.mapping));
  const unread = unreadMappedVars(body.config, body.mapping);
  if (unread.length) throw invalidBody(unread);
  await refuseUncallableModels(c.env, tenantOf(c), graph);
  return {
    body,
    spec: { config: raw.config!, mapping: raw.mapping ?? {}, deadline_ms: body.deadline_ms, ...(raw.prices ? { prices: raw.prices } : {}) },
  };
}

storedJudges.post("/", requireScope("judges:write"), async (c) => {
  const { body, spec } = await readJudge(c);
  const now = new Date().toISOString();
  const record: StoredJudgeRecord = {
    tenant_id: tenantOf(c).tenant_id,
    judge_id: mintJudgeId(),
    name: body.name,
    description: body.description ?? null,
    spec,
    created_at: now,
    updated_at: now,
  };
  await putStoredJudge(c.env.DB, record);
  return reply(c, StoredJudgeView, storedJudgeView(record), 201);
});

storedJudges.get("/", requireScope("judges:read"), async (c) => {
  const q = validateQuery(ListQuery, c.req.queries());
  const rows = await listStoredJudges(c.env.DB, tenantOf(c).tenant_id, q.limit, decodeCreatedCursor(q.cursor));
  return reply(c, StoredJudgeList, { judges: rows.map(storedJudgeView), next_cursor: nextCreatedCursor(rows, q.limit, (j) => j.judge_id) });
});

storedJudges.get("/:id", requireScope("judges:read"), async (c) => reply(c, StoredJudgeView, storedJudgeView(await requireJudge(c))));

/** Replaces the judge; its tokens keep working and grade with the new config from the next call. */
storedJudges.put("/:id", requireScope("judges:write"), async (c) => {
  const old = await requireJudge(c);
  const { body, spec } = await readJudge(c);
  const record: StoredJudgeRecord = {
    ...old,
    name: body.name,
    description: body.description ?? null,
    spec,
    updated_at: new Date().toISOString(),
  };
  await putStoredJudge(c.env.DB, record);
  return reply(c, StoredJudgeView, storedJudgeView(record));
});

/** Deletes the judge and its tokens; audited, since the tokens it ends are credentials a caller may still hold. */
storedJudges.delete("/:id", requireScope("judges:write"), async (c) => {
  const j = await requireJudge(c);
  const audit = auditStatement(c.env.DB, {
    tenant_id: j.tenant_id,
    actor: actorOf(c.get("principal")),
    action: "judge.deleted",
    target: j.judge_id,
    detail: { name: j.name, live_tokens: await liveJudgeTokens(c.env.DB, j.tenant_id, j.judge_id, new Date().toISOString()) },
  });
  await c.env.DB.batch([...deleteStoredJudge(c.env.DB, j.tenant_id, j.judge_id), audit]);
  return reply(c, DeletedStoredJudge, { judge_id: j.judge_id, deleted: true });
});

storedJudges.post("/:id/tokens", requireScope("judges:write"), async (c) => {
  const j = await requireJudge(c);
  const body = validate(CreateJudgeTokenRequest, (await readOptionalJson(c, JUDGE_TOKEN_BODY_LIMIT)).value);
  const pepper = stringVar(c.env.EDGEVAL_KEY_PEPPER);
  if (!pepper)
    throw new ApiFailure({
      code: "not_configured",
      message: "judge tokens are hashed like API keys: set the EDGEVAL_KEY_PEPPER secret (wrangler secret put EDGEVAL_KEY_PEPPER)",
    });
  const { record, token } = await mintJudgeToken(
    pepper,
    {
      tenant_id: j.tenant_id,
      judge_id: j.judge_id,
      name: body.name,
      // A token spends the tenant's model calls: an expiring key mints none that outlives it.
      expires_at: withinLifetime(
        c.get("principal"),
        futureExpiry(body.expires_at, "expires_at"),
        body.expires_at !== undefined,
        "judge token",
      ),
    },
    new Date().toISOString(),
  );
  // One batch: apart, a failed entry left a live token unaudited (and unseen by the caller).
  await c.env.DB.batch([
    insertJudgeToken(c.env.DB, record),
    auditStatement(c.env.DB, {
      tenant_id: j.tenant_id,
      actor: actorOf(c.get("principal")),
      action: "judge_token.created",
      target: record.token_id,
      detail: { judge_id: j.judge_id, name: record.name, expires_at: record.expires_at },
    }),
  ]);
  return reply(
    c,
    MintedJudgeToken,
    { ...judgeTokenView(record), token, promptfoo_url: `${promptfooPath(j.judge_id)}?token=${token}` },
    201,
  );
});

storedJudges.get("/:id/tokens", requireScope("judges:read"), async (c) => {
  const q = validateQuery(ListQuery, c.req.queries());
  const j = await requireJudge(c);
  const rows = await listJudgeTokens(c.env.DB, j.tenant_id, j.judge_id, q.limit, decodeCreatedCursor(q.cursor));
  return reply(c, JudgeTokenList, { tokens: rows.map(judgeTokenView), next_cursor: nextCreatedCursor(rows, q.limit, (t) => t.token_id) });
});

/** Revokes the token: its next call is a 401 (the row stays, with revoked_at). */
storedJudges.delete("/:id/tokens/:token_id", requireScope("judges:write"), async (c) => {
  const j = await requireJudge(c);
  const t = await getJudgeToken(c.env.DB, j.tenant_id, j.judge_id, c.req.param("token_id"));
  if (!t)
    throw new ApiFailure({
      code: "not_found",
      message: `judge ${j.judge_id} has no token ${c.req.param("token_id")}; list them with GET /v1/judges/${j.judge_id}/tokens`,
    });
  const now = new Date().toISOString();
  // Revoking again answers the same 200 and audits nothing: one revocation, one audit entry (as API keys).
  await c.env.DB.batch([
    revokeJudgeToken(c.env.DB, t, now),
    auditIfChanged(c.env.DB, {
      tenant_id: j.tenant_id,
      actor: actorOf(c.get("principal")),
      action: "judge_token.revoked",
      target: t.token_id,
      detail: { judge_id: j.judge_id },
    }),
  ]);
  // Revoked already: its first time stands (or, for a request racing this one, about now).
  return reply(c, JudgeTokenView, judgeTokenView({ ...t, revoked_at: t.revoked_at ?? now }));
});

async function requireJudge(c: Context<AppEnv>): Promise<StoredJudgeRecord> {
  const j = await getStoredJudge(c.env.DB, tenantOf(c).tenant_id, c.req.param("id")!);
  if (!j) throw new ApiFailure({ code: "not_found", message: `no judge ${c.req.param("id")}; list them with GET /v1/judges` });
  return j;
}
