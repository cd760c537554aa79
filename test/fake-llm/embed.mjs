// Deterministic fake embeddings: signed feature hashing of lower-cased words into `dims` buckets,
// then L2-normalised. Identical texts → cosine 1; texts that share words → higher cosine than
// unrelated texts (whose expected cosine is 0). Empty text → the unit vector e0.

export const DEFAULT_DIMS = 64;

/** FNV-1a, 32-bit. */
function fnv1a(str) {
  let h = 0x811c9dc5;
  for (let i = 0; i < str.length; i++) {
    h ^= str.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** @param {string} text @param {number} [dims] @returns {number[]} */
export function embedText(text, dims = DEFAULT_DIMS) {
  const v = new Array(dims).fill(0);
  const words =
    String(text)
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const w of words) {
    const h = fnv1a(w);
    v[h % dims] += h >>> 31 === 1 ? -1 : 1;
  }
  const norm = Math.sqrt(v.reduce((a, x) => a + x * x, 0));
  if (norm === 0) {
    v[0] = 1;
    return v;
  }
  return v.map((x) => x / norm);
}

/** @param {number[]} a @param {number[]} b */
export function cosine(a, b) {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

/** float32 little-endian, base64: what OpenAI sends for `encoding_format: "base64"`. */
export function toBase64Float32(vector) {
  const f32 = Float32Array.from(vector);
  return Buffer.from(f32.buffer, f32.byteOffset, f32.byteLength).toString("base64");
}
