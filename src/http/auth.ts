/**
 * Auth for /v1 (src/tenants/README.md): Hono's bearer middleware parses the header; the token is
 * resolved to a tenant and scopes by src/tenants/authenticate.ts and stored as `principal`.
 * `requireScope` guards each route. /v1/admin takes the operator's EDGEVAL_ADMIN_TOKEN instead.
 * Both refuse a query parameter the route does not take once they accept the caller (undeclared-query.ts).
 */
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import type { Env } from "../env";
import { sameSecret } from "../tenants/api-key";
import { type AuthFailure, authenticate, type Principal } from "../tenants/authenticate";
import { touchKey } from "../tenants/keys-repo";
import type { QuotaState } from "../tenants/ratelimit-headers";
import type { Scope } from "../schemas/scopes";
import { ApiFailure, errorResponse, tenantDisabled } from "./errors";
import { refuseUndeclaredQuery, type UndeclaredQuery } from "./undeclared-query";

export type AppEnv = {
  Bindings: Env;
  Variables: {
    principal: Principal;
    authFailure?: Exclude<AuthFailure, "disabled"> /** The tenant's quota states for the RateLimit headers. */;
    quotaStates?: QuotaState[];
    /** The matched route takes no query of its own: refused once the caller is authorised (undeclared-query.ts). */
    undeclaredQuery?: UndeclaredQuery;
  };
};

/** A disabled tenant is not a bad credential: a 403 (errors.ts tenantDisabled), not one of these 401s. */
const FAILURE_MESSAGES: Record<Exclude<AuthFailure, "disabled">, string> = {
  unknown: 'send "Authorization: Bearer <key>" with an API key of your tenant (or the deployment\'s EDGEVAL_API_TOKEN)',
  revoked: "this API key was revoked; use another key of your tenant, or ask the operator for one (POST /v1/admin/tenants/:id/keys)",
  expired:
    "this API key has expired; create a new one with POST /v1/keys (a key with keys:admin), or ask the operator (POST /v1/admin/tenants/:id/keys)",
  no_pepper: "the server cannot check API keys: set the EDGEVAL_KEY_PEPPER secret (wrangler secret put EDGEVAL_KEY_PEPPER)",
};

const unauthorized = (c: Context<AppEnv>) => {
  const reason = c.get("authFailure") ?? "unknown";
  if (reason === "no_pepper") return errorResponse(c, { code: "not_configured", message: FAILURE_MESSAGES.no_pepper });
  return errorResponse(c, { code: "unauthorized", message: FAILURE_MESSAGES[reason] });
};

/** Every message option answers in the API's error shape, with 401 (never bearer's bare 400). */
const bearerMessages = {
  noAuthenticationHeader: { message: unauthorized },
  invalidAuthenticationHeader: { message: unauthorized },
  invalidToken: { message: unauthorized },
};

export const tenantAuth: MiddlewareHandler<AppEnv> = bearerAuth<AppEnv>({
  ...bearerMessages,
  verifyToken: async (token, c) => {
    const outcome = await authenticate(
      token,
      { db: c.env.DB, apiToken: stringVar(c.env.EDGEVAL_API_TOKEN), pepper: stringVar(c.env.EDGEVAL_KEY_PEPPER) },
      new Date(),
    );
    if (!outcome.ok) {
      if (outcome.reason === "disabled") throw tenantDisabled(outcome.tenant_id);
      c.set("authFailure", outcome.reason);
      return false;
    }
    c.set("principal", outcome.principal);
    const keyId = outcome.principal.keyId;
    if (outcome.touch && keyId) afterResponse(c, touchKey(c.env.DB, keyId, new Date().toISOString()));
    return true;
  },
});

/** The operator's routes: EDGEVAL_ADMIN_TOKEN only; without it they are closed (503). */
export const adminAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const expected = stringVar(c.env.EDGEVAL_ADMIN_TOKEN);
  if (!expected) {
    throw new ApiFailure({ code: "not_configured", message: "the admin routes are off: set the EDGEVAL_ADMIN_TOKEN secret to use them" });
  }
  return bearerAuth<AppEnv>({ ...bearerMessages, verifyToken: (token) => sameSecret(token, expected) })(c, async () => {
    refuseUndeclaredQuery(c);
    await next();
  });
};

export function requireScope(scope: Scope): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!c.get("principal").scopes.has(scope)) {
      throw new ApiFailure({
        code: "forbidden",
        message: `this API key lacks the scope ${scope}; create a key that has it (POST /v1/keys)`,
      });
    }
    // Every tenant route passes here: the key and its scope are the whole of its auth.
    refuseUndeclaredQuery(c);
    await next();
  };
}

export const tenantOf = (c: Context<AppEnv>) => c.get("principal").tenant;

/** Lets work finish after the response; without an execution context (app.fetch in tests) it is awaited-free fire. */
export function afterResponse(c: Context<AppEnv>, work: Promise<unknown>): void {
  const settled = work.catch(() => {});
  try {
    c.executionCtx.waitUntil(settled);
  } catch {
    // no execution context: the promise still runs to completion on its own
  }
}

export function stringVar(v: unknown): string | undefined {
  return typeof v === "string" && v.length > 0 ? v : undefined;
}
