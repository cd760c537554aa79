/**
 * API keys: `ev_<12 hex id>_<secret>`, the secret 160 random bits in RFC 4648 base32 (lower case,
 * no padding, so never an `_`). The id is the D1 primary key the request looks up; the secret is
 * checked against HMAC-SHA-256(pepper, whole key). Only that hash is stored: a D1 dump without the
 * pepper (a Worker secret) cannot even confirm a guessed key.
 */
import { hmacSha256, sha256Hex, toHex } from "../lib/sha256";
const ID_HEX = 12;
const SECRET_BYTES = 20;
const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

export interface ParsedKey {
  keyId: string;
  /** The whole key as sent; it is what gets hashed. */
  key: string;
}

/**
 * A fresh `<prefix>_<12 hex id>_<32 base32>` credential and its id: API keys (`ev`) and stored
 * judges' promptfoo tokens (`jt`, src/stored-judges) share the format and the hashing.
 * `random` is injectable so tests can pin it.
 */
export function generateToken(prefix: string, random: (n: number) => Uint8Array = randomBytes): ParsedKey {
  const keyId = toHex(random(ID_HEX / 2));
  return { keyId, key: `${prefix}_${keyId}_${base32(random(SECRET_BYTES))}` };
}

/** Null when the string is not shaped like a `<prefix>_…` credential. */
export function parseToken(prefix: string, token: string): ParsedKey | null {
  const m = new RegExp(`^${prefix}_([0-9a-f]{${ID_HEX}})_([a-z2-7]{32})$`).exec(token);
  return m ? { keyId: m[1]!, key: token } : null;
}

/** A fresh API key (`ev_…`). */
export const generateKey = (random?: (n: number) => Uint8Array): ParsedKey => generateToken("ev", random);

/** Null when the string is not shaped like one of our keys (then it may be the default token). */
export const parseKey = (token: string): ParsedKey | null => parseToken("ev", token);

/** Hex HMAC-SHA-256 of the key under the pepper. */
export async function hashKey(key: string, pepper: string): Promise<string> {
  return toHex(await hmacSha256(pepper, key));
}

/** Compares two strings in time that depends only on their lengths (both are fixed-size hashes here). */
export function sameHash(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Compares secrets of any length by their digests, so timing reveals nothing about a match. */
export async function sameSecret(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([sha256Hex(given), sha256Hex(expected)]);
  return sameHash(a, b);
}

function randomBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}

function base32(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}
