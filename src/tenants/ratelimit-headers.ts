/**
 * The headers of draft-ietf-httpapi-ratelimit-headers-10: `RateLimit-Policy` names each quota
 * (`q` units per `w` seconds) and `RateLimit` says what is left of it (`r`) and in how many
 * seconds it is restored (`t`). Sent on every tenant response, 2xx included, and with Retry-After
 * on a 429.
 */
export interface QuotaState {
  policy: string;
  quota: number;
  windowS?: number;
  remaining: number;
  resetS?: number;
}

export function rateLimitHeaders(states: readonly QuotaState[]): Record<string, string> {
  const policy = states.map((s) => `"${s.policy}";q=${s.quota}${s.windowS !== undefined ? `;w=${s.windowS}` : ""}`).join(", ");
  const left = states.map((s) => `"${s.policy}";r=${s.remaining}${s.resetS !== undefined ? `;t=${s.resetS}` : ""}`).join(", ");
  return { "RateLimit-Policy": policy, RateLimit: left };
}
