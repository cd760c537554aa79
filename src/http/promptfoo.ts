/**
 * POST /v1/judges/:id/promptfoo?token=jt_… (src/stored-judges/README.md): promptfoo's `webhook`
 * assertion grades with a stored judge. promptfoo sends only a Content-Type header, so the
 * credential is the judge token in the URL (promptfoo renders `{{ env.EDGEVAL_JUDGE_TOKEN }}` into
 * it): checked against its HMAC, for this judge only, before the body is read. The tenant's
 * request rate applies as for a key. A decided judge answers `{pass, score, reason}`; an undecided
 * one (a model kept failing, the deadline passed) answers 502 — promptfoo reports a webhook
 * error, never a fail of the output.
 */
import { Hono } from "hono";
import { JUDGE_TOKEN_QUERY } from "../openapi/operation";
import { JUDGE_BODY_LIMIT } from "../schemas/body-limits";
import { PromptfooVerdict } from "../schemas/stored-judge-views";
import { PromptfooRequest } from "../schemas/stored-judges";
import { getStoredJudge, runnable } from "../stored-judges/judges-repo";
import { promptfooAnswer, promptfooSample, varsRead } from "../stored-judges/promptfoo";
import { checkJudgeToken, type TokenCheck, touchJudgeToken } from "../stored-judges/tokens-repo";
import { getTenant } from "../tenants/tenants-repo";
import { afterResponse, type AppEnv, stringVar } from "./auth";
import { readJson, validate } from "./body";
import { ApiFailure, invalidBody, tenantDisabled } from "./errors";
import { judgeOne } from "./judge";
import { reply } from "./reply";
import { requestRate } from "./request-rate";
import { refuseUndeclaredQuery } from "./undeclared-query";

export const promptfoo = new Hono<AppEnv>();

const REFUSED: Record<Exclude<TokenCheck, { ok: true }>["reason"], string> = {
  expired: "this judge token has expired: mint another with POST /v1/judges/:id/tokens (expires_at sets how long it lasts)",
  malformed: "the token is not a judge token (jt_…): mint one with POST /v1/judges/:id/tokens",
  unknown: "no such judge token: mint one with POST /v1/judges/:id/tokens",
  revoked: "this judge token was revoked: mint another with POST /v1/judges/:id/tokens",
  other_judge: "this token grades with another judge: each token works for the one judge it was minted for",
};

promptfoo.post(
  "/:id/promptfoo",
  async (c, next) => {
    const sent = c.req.query(JUDGE_TOKEN_QUERY);
    if (!sent)
      throw new ApiFailure({
        code: "unauthorized",
        message: "add ?token=jt_… to the URL: a token of this judge (POST /v1/judges/:id/tokens)",
      });
    const pepper = stringVar(c.env.EDGEVAL_KEY_PEPPER);
    if (!pepper)
      throw new ApiFailure({ code: "not_configured", message: "the server cannot check judge tokens: set the EDGEVAL_KEY_PEPPER secret" });
    const check = await checkJudgeToken(c.env.DB, pepper, sent, c.req.param("id"), Date.now());
    if (!check.ok) {
      const message = check.reason === "expired" ? `${REFUSED.expired} It expired at ${check.expired_at}.` : REFUSED[check.reason];
      throw new ApiFailure({ code: "unauthorized", message });
    }
    const tenant = await getTenant(c.env.DB, check.token.tenant_id);
    if (!tenant || tenant.disabled) throw tenantDisabled(check.token.tenant_id);
    // Authorised: now a parameter besides the token is refused, before the token counts as used.
    refuseUndeclaredQuery(c);
    // A principal with no scope: enough for the tenant's request bucket, nothing else.
    c.set("principal", { tenant, keyId: null, scopes: new Set(), expiresAt: null });
    afterResponse(c, touchJudgeToken(c.env.DB, check.token, new Date()));
    await next();
  },
  requestRate,
  async (c) => {
    // promptfoo's clock runs from its send: ours starts as the request arrives.
    const startedAt = Date.now();
    const tenant = c.get("principal").tenant;
    const judge = await getStoredJudge(c.env.DB, tenant.tenant_id, c.req.param("id"));
    if (!judge) throw new ApiFailure({ code: "not_found", message: `no judge ${c.req.param("id")}` });
    const body = validate(PromptfooRequest, (await readJson(c, JUDGE_BODY_LIMIT)).value);
    const { config, mapping, prices, deadline_ms } = runnable(judge.spec);
    const mapped = promptfooSample(body, mapping, mapping.vars ? [] : varsRead(config));
    if (!mapped.ok) throw invalidBody(mapped.issues);
    const answer = promptfooAnswer(
      await judgeOne(c.env, tenant, {
        config,
        sample: mapped.sample,
        prices,
        deadline_ms,
        startedAt,
        settleLater: (p) => afterResponse(c, p),
      }),
    );
    if (!answer.decided) throw new ApiFailure({ code: "judge_undecided", message: answer.why });
    return reply(c, PromptfooVerdict, answer.verdict);
  },
);
