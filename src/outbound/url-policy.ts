/**
 * The one outbound URL policy: may edgeval send a request to this URL? Every user-supplied URL
 * (a model's base_url, the embedding check's provider, webhook and search URLs) is checked here at
 * submit (a 400 naming the field) and again by guarded-fetch.ts for every request, because a
 * queued spec may predate a change of the policy and the SDKs build the final URL themselves.
 *
 * Production: https only; a hostname that is an IP address must be public unicast (addresses.ts);
 * `localhost`, `*.localhost` and private-use names (`*.internal`, `*.local`, `*.home.arpa`) are
 * refused; no userinfo (`user:pass@`); no `#` anywhere and, for a base URL (the SDK appends the
 * path), no `?` either: `http://host/x#` would make the appended path a fragment and send the
 * request to `/x`. Local mode (EDGEVAL_ENV=local): http and loopback are allowed as well, for the
 * fake LLM and a local model server. EDGEVAL_PRIVATE_ORIGINS lists origins the operator allows
 * whatever their address (a self-hosted model server on a private network).
 */
import { classifyHost } from "./addresses";

export interface OutboundPolicy {
  /** A developer's machine (isLocalMode): http and loopback addresses allowed. */
  local: boolean;
  /** EDGEVAL_PRIVATE_ORIGINS: allowed whatever their scheme and address. */
  privateOrigins: ReadonlySet<string>;
  /** Origins whose error text may reach the caller: the built-in providers' and the operator's lists. */
  providerOrigins: ReadonlySet<string>;
}

/** `base`: the SDK appends a path (no query, no fragment). `endpoint`: the URL as requested (no fragment). */
export type UrlUse = "base" | "endpoint";

/** Names that resolve only inside a network, refused like the addresses they stand for. */
const PRIVATE_NAME_SUFFIXES = [".internal", ".local", ".home.arpa", ".localdomain"];

/** Null when edgeval may send requests to `raw`; else why not, in words for the caller. */
export function outboundUrlIssue(raw: string, policy: OutboundPolicy, use: UrlUse): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${JSON.stringify(raw)} is not a URL`;
  }
  const shown = JSON.stringify(raw.length > 200 ? `${raw.slice(0, 200)}…` : raw);
  if (url.protocol !== "https:" && url.protocol !== "http:") return `${shown} must be an http(s) URL`;
  if (url.username || url.password) return `${shown} carries credentials (user:password@); give keys as secrets, never in a URL`;
  // An empty fragment or query ("…/x#", "…/x?") does not show in url.hash / url.search: read the text.
  if (raw.includes("#")) return `${shown} has a fragment (#): a base URL or endpoint must not have one`;
  if (use === "base" && raw.includes("?")) return `${shown} has a query (?): a base URL must not have one, the path is appended to it`;
  if (policy.privateOrigins.has(url.origin)) return null;

  const host = url.hostname.endsWith(".") ? url.hostname.slice(0, -1) : url.hostname;
  const advice =
    "edgeval sends requests only to public addresses (an operator may allow a self-hosted server with EDGEVAL_PRIVATE_ORIGINS)";
  if (host === "localhost" || host.endsWith(".localhost")) {
    if (!policy.local) return `${shown} points at ${host}, a loopback name; ${advice}`;
  } else if (PRIVATE_NAME_SUFFIXES.some((s) => host.endsWith(s))) {
    return `${shown} points at ${host}, a name that resolves only inside a network; ${advice}`;
  } else {
    const verdict = classifyHost(url.hostname);
    if (verdict !== null && !verdict.public && !(verdict.loopback && policy.local))
      return `${shown} points at ${url.hostname}, a ${verdict.range} address; ${advice}`;
  }
  if (url.protocol === "http:" && !policy.local) return `${shown} must use https`;
  return null;
}
