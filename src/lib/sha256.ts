/** SHA-256 and HMAC-SHA-256 through Web Crypto (in workerd, Node and browsers), and lowercase hex. */

/** "00"…"ff": a digest's hex is one lookup a byte, not a number formatted and padded (a result takes several digests). */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]!];
  return out;
}

const encoder = new TextEncoder();
const utf8 = (s: string | Uint8Array): Uint8Array => (typeof s === "string" ? encoder.encode(s) : s);

/** SHA-256 of a string's UTF-8 bytes, as lowercase hex. */
export async function sha256Hex(text: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", utf8(text))));
}

/** HMAC-SHA-256 of `data` under `key` (strings are taken as UTF-8). */
export async function hmacSha256(key: string | Uint8Array, data: string | Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(key), utf8(data)));
}

/**
 * Imported keys by their text: the prompt nonces sign two messages per result under one key, and
 * an import cost about as much as the signature (bench/throughput). The key itself is kept, not a
 * promise of it (a promise is settled only in the request that made it). Keys given as bytes are
 * imported each time. A few keys only: the isolate's nonce key, an operator's pepper.
 */
const importedKeys = new Map<string, CryptoKey>();
const MAX_IMPORTED_KEYS = 8;

async function hmacKey(key: string | Uint8Array): Promise<CryptoKey> {
  const known = typeof key === "string" ? importedKeys.get(key) : undefined;
  if (known) return known;
  const k = await crypto.subtle.importKey("raw", utf8(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  if (typeof key === "string") {
    if (importedKeys.size >= MAX_IMPORTED_KEYS) importedKeys.clear();
    importedKeys.set(key, k);
  }
  return k;
}
