/**
 * Karenina's `generate_question_id`: the id a question without an `@id` gets,
 * `urn:uuid:question-<slug of the text, 50 chars>-<md5(text)[:8]>`. MD5 is not in WebCrypto, so
 * it is computed here (RFC 1321; used only as Karenina uses it, as a content id, never for security).
 */
export function kareninaQuestionId(text: string): string {
  const prefix = text.toLowerCase().replaceAll(" ", "-").replaceAll("?", "").replaceAll(".", "").replaceAll(",", "");
  // Python slices code points, not UTF-16 units.
  return `urn:uuid:question-${[...prefix].slice(0, 50).join("")}-${md5Hex(text).slice(0, 8)}`;
}

const S = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
const K = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) >>> 0);

export function md5Hex(text: string): string {
  const bytes = new TextEncoder().encode(text);
  const len = ((bytes.length + 8) >> 6) * 64 + 64;
  const msg = new Uint8Array(len);
  msg.set(bytes);
  msg[bytes.length] = 0x80;
  const view = new DataView(msg.buffer);
  view.setUint32(len - 8, (bytes.length * 8) >>> 0, true);
  view.setUint32(len - 4, Math.floor(bytes.length / 2 ** 29), true);
  let [a0, b0, c0, d0] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];
  for (let off = 0; off < len; off += 64) {
    let [a, b, c, d] = [a0, b0, c0, d0];
    for (let i = 0; i < 64; i++) {
      let f: number;
      let g: number;
      if (i < 16) [f, g] = [(b & c) | (~b & d), i];
      else if (i < 32) [f, g] = [(d & b) | (~d & c), (5 * i + 1) % 16];
      else if (i < 48) [f, g] = [b ^ c ^ d, (3 * i + 5) % 16];
      else [f, g] = [c ^ (b | ~d), (7 * i) % 16];
      const sum = (a + f + K[i]! + view.getUint32(off + g * 4, true)) >>> 0;
      const s = S[(i >> 4) * 4 + (i % 4)]!;
      [a, d, c] = [d, c, b];
      b = (b + ((sum << s) | (sum >>> (32 - s)))) >>> 0;
    }
    [a0, b0, c0, d0] = [(a0 + a) >>> 0, (b0 + b) >>> 0, (c0 + c) >>> 0, (d0 + d) >>> 0];
  }
  const out = new DataView(new ArrayBuffer(16));
  [a0, b0, c0, d0].forEach((w, i) => out.setUint32(i * 4, w, true));
  return [...new Uint8Array(out.buffer)].map((x) => x.toString(16).padStart(2, "0")).join("");
}
