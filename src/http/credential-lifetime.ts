/**
 * A key mints no credential that outlives it, as it hands out no scope it lacks: otherwise a key
 * given for a day (with keys:admin or judges:write) could mint an API key or a judge token that
 * never expires. One rule for every credential a key mints (POST /v1/keys, POST /v1/keys/:id/rotate,
 * POST /v1/judges/:id/tokens): an expiry the caller sent (a time, or null for never) past the minting
 * key's own is a 403; one it left to the default is cut to the minting key's, which the answer
 * shows. The deployment token and keys without an expiry mint any. Trigger and webhook signing
 * secrets are not capped: they belong to their trigger or endpoint, not to the key (src/tenants/README.md).
 */
import type { Principal } from "../tenants/authenticate";
import { ApiFailure } from "./errors";

/** `what`: the credential minted, as the 403 names it ("key", "judge token"). */
export function withinLifetime(principal: Principal, expiresAt: string | null, sent: boolean, what: "key" | "judge token"): string | null {
  const limit = principal.expiresAt;
  if (limit === null) return expiresAt;
  if (expiresAt !== null && Date.parse(expiresAt) <= Date.parse(limit)) return expiresAt;
  if (!sent) return limit;
  throw new ApiFailure({
    code: "forbidden",
    message: `this API key expires at ${limit} and cannot mint a ${what} that outlives it: send expires_at at or before then (or leave it out), or use a key without an expiry`,
  });
}
