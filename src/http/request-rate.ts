/**
 * The tenant's request rate (src/tenants/request-bucket.ts): every authenticated /v1 request
 * takes one token from the tenant's bucket. A refused request is a 429 with Retry-After; every
 * response, 2xx included, says where the tenant stands in RateLimit-Policy / RateLimit.
 */
import type { MiddlewareHandler } from "hono";
import { effectiveLimits } from "../tenants/limits";
import { rateLimitHeaders } from "../tenants/ratelimit-headers";
import { REQUEST_WINDOW_S } from "../tenants/rate-limiter";
import { type AppEnv, tenantOf } from "./auth";
import { ApiFailure } from "./errors";

export const requestRate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const tenant = tenantOf(c);
  const quota = effectiveLimits(tenant.limits_json).requests_per_minute;
  const d = await c.env.TENANT_LIMITER.getByName(tenant.tenant_id).take(quota);
  const headers = rateLimitHeaders([{ policy: "requests", quota, windowS: REQUEST_WINDOW_S, remaining: d.remaining, resetS: d.resetS }]);
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  if (!d.allowed) {
    c.header("Retry-After", String(d.retryAfterS));
    throw new ApiFailure({
      code: "rate_limited",
      message: `this tenant may make ${quota} requests per ${REQUEST_WINDOW_S} s; retry after ${d.retryAfterS} s`,
    });
  }
  await next();
  for (const [k, v] of Object.entries(headers)) if (!c.res.headers.has(k)) c.res.headers.set(k, v);
};
