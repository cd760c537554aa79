/**
 * Inbound signature checks for POST /v1/hooks/:trigger_id. Every comparison of a computed MAC with
 * a received one is crypto.subtle.timingSafeEqual over equal-length bytes (a length mismatch is a
 * refusal before any comparison), so response time says nothing about how much of a guess matched.
 *
 * - standard_webhooks: `webhook-signature: v1,<base64 HMAC-SHA256(key, id.timestamp.body)>` (space-
 *   separated list), key = base64 after `whsec_`; `webhook-timestamp` within 5 minutes of now.
 * - github: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>`.
 * - hex_header: a header the trigger names, lowercase hex HMAC-SHA256(secret, body), `sha256=` optional.
 */
import { hmacSha256 } from "../lib/sha256";
import type { TriggerSigning } from "../schemas/triggers";

/** Standard Webhooks' replay window (https://www.standardwebhooks.com, "Verifying webhooks"). */
export const TIMESTAMP_TOLERANCE_S = 5 * 60;

export type Verdict = { ok: true; delivery_id: string | null } | { ok: false; reason: string };

export async function verifyDelivery(
  signing: TriggerSigning,
  secret: string,
  headers: Headers,
  body: Uint8Array,
  nowMs: number,
): Promise<Verdict> {
  switch (signing.scheme) {
    case "standard_webhooks":
      return verifyStandard(secret, headers, body, nowMs);
    case "github": {
      const sig = headers.get("x-hub-signature-256");
      const ok = sig !== null && sig.startsWith("sha256=") && (await hexMacMatches(utf8(secret), body, sig.slice(7)));
      return ok
        ? { ok: true, delivery_id: headers.get("x-github-delivery") }
        : { ok: false, reason: "X-Hub-Signature-256 is missing or does not match" };
    }
    case "hex_header": {
      const raw = headers.get(signing.header);
      const hex = raw?.startsWith("sha256=") ? raw.slice(7) : raw;
      const ok = hex != null && (await hexMacMatches(utf8(secret), body, hex));
      const delivery = signing.delivery_id_header ? headers.get(signing.delivery_id_header) : null;
      return ok ? { ok: true, delivery_id: delivery } : { ok: false, reason: `${signing.header} is missing or does not match` };
    }
  }
}

async function verifyStandard(secret: string, headers: Headers, body: Uint8Array, nowMs: number): Promise<Verdict> {
  const id = headers.get("webhook-id");
  const ts = headers.get("webhook-timestamp");
  const sigs = headers.get("webhook-signature");
  if (!id || !ts || !sigs) return { ok: false, reason: "webhook-id, webhook-timestamp and webhook-signature are required" };
  if (!/^\d{1,12}$/.test(ts) || Math.abs(nowMs / 1000 - Number(ts)) > TIMESTAMP_TOLERANCE_S) {
    return { ok: false, reason: "webhook-timestamp is more than 5 minutes from now" };
  }
  const key = base64Bytes(secret.startsWith("whsec_") ? secret.slice(6) : secret);
  if (!key) return { ok: false, reason: "the trigger's secret is not a whsec_ secret" };
  const mac = await hmacSha256(key, concat(utf8(`${id}.${ts}.`), body));
  for (const entry of sigs.split(" ")) {
    const [version, value] = entry.split(",", 2);
    const got = version === "v1" && value ? base64Bytes(value) : null;
    if (got && equalBytes(got, mac)) return { ok: true, delivery_id: id };
  }
  return { ok: false, reason: "no webhook-signature entry matches" };
}

async function hexMacMatches(key: Uint8Array, body: Uint8Array, hex: string): Promise<boolean> {
  if (!/^[0-9a-f]{64}$/.test(hex)) return false;
  const got = Uint8Array.from(hex.match(/../g)!, (h) => Number.parseInt(h, 16));
  return equalBytes(got, await hmacSha256(key, body));
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && crypto.subtle.timingSafeEqual(a, b);
}

function base64Bytes(s: string): Uint8Array | null {
  try {
    return Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}

const utf8 = (s: string) => new TextEncoder().encode(s);

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}
