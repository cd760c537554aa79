/**
 * Bearer-token auth: one token from the EDGEVAL_API_TOKEN secret. Without the secret the API
 * refuses to serve (503) rather than run open.
 */
import type { MiddlewareHandler } from "hono";
import type { Env } from "../env";
import { ApiFailure } from "./errors";

export const bearerAuth: MiddlewareHandler<{ Bindings: Env }> = async (c, next) => {
  const expected = c.env.EDGEVAL_API_TOKEN;
  if (typeof expected !== "string" || expected.length === 0) {
    throw new ApiFailure({
      code: "not_configured",
      message: "the server has no API token: set the EDGEVAL_API_TOKEN secret (wrangler secret put EDGEVAL_API_TOKEN)",
    });
  }
  const header = c.req.header("authorization") ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header);
  if (!match || !(await sameSecret(match[1]!.trim(), expected))) {
    throw new ApiFailure({ code: "unauthorized", message: 'send "Authorization: Bearer <token>" with the API token' });
  }
  await next();
};

/** Compares digests so the time taken does not reveal how much of the token matched. */
async function sameSecret(given: string, expected: string): Promise<boolean> {
  const enc = new TextEncoder();
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", enc.encode(given)),
    crypto.subtle.digest("SHA-256", enc.encode(expected)),
  ]);
  const x = new Uint8Array(a);
  const y = new Uint8Array(b);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ y[i]!;
  return diff === 0;
}
