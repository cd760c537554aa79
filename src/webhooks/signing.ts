/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): `whsec_<base64 of 32 random bytes>`
 * secrets, and `webhook-signature: v1,<sig>` over `${id}.${timestamp}.${body}`, computed by the
 * `standardwebhooks` package itself so a receiver using it verifies exactly what we sign. During a
 * rotation every signing secret contributes one `v1,…`, space-separated.
 */
import { Webhook } from "standardwebhooks";
import { parseKek, seal, secretAad, type Sealed, unseal } from "../lib/secret-crypto";

export function mintSigningSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return `whsec_${btoa(s)}`;
}

/** AAD binds a sealed secret to its tenant and endpoint: a row copied elsewhere fails to decrypt. */
const aad = (tenantId: string, endpointId: string) => secretAad(tenantId, `webhook:${endpointId}`);

export const sealSigningSecret = (kek: unknown, tenantId: string, endpointId: string, secret: string): Promise<Sealed> =>
  seal(parseKek(kek), aad(tenantId, endpointId), secret);

export const unsealSigningSecrets = (kek: unknown, tenantId: string, endpointId: string, sealed: Sealed[]): Promise<string[]> =>
  Promise.all(sealed.map((s) => unseal(parseKek(kek), aad(tenantId, endpointId), s)));

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/** The three Standard Webhooks headers for one attempt, signed at `at` with every secret given. */
export function signDelivery(secrets: readonly string[], webhookId: string, at: Date, body: string): SignedHeaders {
  return {
    "webhook-id": webhookId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((s) => new Webhook(s).sign(webhookId, at, body)).join(" "),
  };
}
