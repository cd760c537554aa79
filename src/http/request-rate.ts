/**
 * The tenant's request rate (src/tenants/request-bucket.ts): every authenticated /v1 request
 * takes one token from the tenant's bucket. A refused request is a 429 with Retry-After; every
 * response, 2xx included, says where the tenant stands in RateLimit-Policy / RateLimit. A route
 * refusing for another quota (concurrent runs) adds its policy with `refuseOverQuota`.
 * Most requests spend a token of the isolate's allowance instead of calling the tenant's object
 * (src/tenants/request-allowance.ts, which states the bound it keeps).
 */
import type { Context, MiddlewareHandler } from "hono";
import { effectiveLimits } from "../tenants/limits";
import { type QuotaState, rateLimitHeaders } from "../tenants/ratelimit-headers";
import { REQUEST_WINDOW_S } from "../tenants/rate-limiter";
import { ALLOWANCE_BATCH, ALLOWANCE_MS, RequestAllowances } from "../tenants/request-allowance";
import { type AppEnv, tenantOf } from "./auth";
import { ApiFailure } from "./errors";

/** This isolate's allowances (per tenant). */
const allowances = new RequestAllowances();

export const requestRate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const tenant = tenantOf(c);
  const quota = effectiveLimits(tenant.limits_json).requests_per_minute;
  const d = allowances.spend(tenant.tenant_id, quota, Date.now(), REQUEST_WINDOW_S) ?? (await takeBatch(c, tenant.tenant_id, quota));
  const requests: QuotaState = { policy: "requests", quota, windowS: REQUEST_WINDOW_S, remaining: d.remaining, resetS: d.resetS };
  c.set("quotaStates", [requests]);
  setHeaders(c, [requests]);
  if (!d.allowed) {
    c.header("Retry-After", String(d.retryAfterS));
    throw new ApiFailure({
      code: "rate_limited",
      message: `this tenant may make ${quota} requests per ${REQUEST_WINDOW_S} s; retry after ${d.retryAfterS} s`,
    });
  }
  await next();
  const headers = rateLimitHeaders(c.get("quotaStates") ?? [requests]);
  for (const [k, v] of Object.entries(headers)) if (!c.res.headers.has(k)) c.res.headers.set(k, v);
};

async function takeBatch(c: Context<AppEnv>, tenantId: string, quota: number) {
  const askedAt = Date.now();
  const d = await c.env.TENANT_LIMITER.getByName(tenantId).take(quota, { size: ALLOWANCE_BATCH, holdMs: ALLOWANCE_MS });
  allowances.keep(tenantId, quota, askedAt, d);
  return d;
}

/** Throws the 429 of a quota other than the request rate, its state listed with the request rate's. */
export function refuseOverQuota(c: Context<AppEnv>, state: QuotaState, retryAfterS: number, message: string): never {
  const states = [...(c.get("quotaStates") ?? []), state];
  c.set("quotaStates", states);
  setHeaders(c, states);
  c.header("Retry-After", String(retryAfterS));
  throw new ApiFailure({ code: "quota_exceeded", message });
}

function setHeaders(c: Context<AppEnv>, states: QuotaState[]): void {
  for (const [k, v] of Object.entries(rateLimitHeaders(states))) c.header(k, v);
}
