/** SHA-256 of a string's UTF-8 bytes, as lowercase hex (Web Crypto: in workerd, Node and browsers). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
