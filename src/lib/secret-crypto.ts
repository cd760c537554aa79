/**
 * Secrets at rest (tenant provider keys; webhook signing secrets, src/webhooks): AES-256-GCM (WebCrypto) with a random 96-bit IV per write and the
 * additional data `tenant_id|name`, so a ciphertext copied to another tenant's or another name's
 * row fails to decrypt. The key-encryption key comes from the EDGEVAL_SECRETS_KEK secret:
 * either one value (version 1) or `1:<secret> 2:<secret> …`; the highest version encrypts, every
 * listed version decrypts, and each row records the version it was written with (rotate the KEK by
 * adding a version; rows re-encrypt when next written). The AES key is HKDF-SHA-256 of the
 * secret string, so any long random string serves.
 */
export interface Sealed {
  ciphertext: string;
  iv: string;
  kek_version: number;
}

export class KekMissing extends Error {
  constructor(readonly version?: number) {
    super(version === undefined ? "EDGEVAL_SECRETS_KEK is not set" : `EDGEVAL_SECRETS_KEK has no version ${version}`);
  }
}

/** Parses EDGEVAL_SECRETS_KEK into version → secret. */
export function parseKek(raw: unknown): Map<number, string> {
  const out = new Map<number, string>();
  if (typeof raw !== "string" || raw.trim() === "") return out;
  const parts = raw.trim().split(/\s+/);
  if (parts.length === 1 && !/^\d+:/.test(parts[0]!)) return out.set(1, parts[0]!);
  for (const p of parts) {
    const m = /^(\d+):(.+)$/.exec(p);
    if (m) out.set(Number(m[1]), m[2]!);
  }
  return out;
}

export const secretAad = (tenantId: string, name: string) => `${tenantId}|${name}`;

export async function seal(keks: Map<number, string>, aad: string, plaintext: string): Promise<Sealed> {
  if (keks.size === 0) throw new KekMissing();
  const version = Math.max(...keks.keys());
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await aesKey(keks.get(version)!, version);
  const enc = new TextEncoder();
  const ct = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: enc.encode(aad) }, key, enc.encode(plaintext));
  return { ciphertext: b64(new Uint8Array(ct)), iv: b64(iv), kek_version: version };
}

/** Throws on a wrong KEK, a tampered ciphertext or another row's AAD. */
export async function unseal(keks: Map<number, string>, aad: string, sealed: Sealed): Promise<string> {
  const secret = keks.get(sealed.kek_version);
  if (secret === undefined) throw new KekMissing(sealed.kek_version);
  const key = await aesKey(secret, sealed.kek_version);
  const pt = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: unb64(sealed.iv), additionalData: new TextEncoder().encode(aad) },
    key,
    unb64(sealed.ciphertext),
  );
  return new TextDecoder().decode(pt);
}

async function aesKey(secret: string, version: number): Promise<CryptoKey> {
  const enc = new TextEncoder();
  const base = await crypto.subtle.importKey("raw", enc.encode(secret), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: enc.encode(`edgeval tenant secrets v${version}`) },
    base,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

function b64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function unb64(s: string): Uint8Array {
  return Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0));
}
