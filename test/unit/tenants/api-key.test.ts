import { describe, expect, it } from "vitest";
import { generateKey, hashKey, parseKey, sameHash } from "../../../src/tenants/api-key";

describe("API key format", () => {
  it("mints ev_<12 hex>_<32 base32> keys that parse back to their id", () => {
    for (let i = 0; i < 50; i++) {
      const { keyId, key } = generateKey();
      expect(key).toMatch(/^ev_[0-9a-f]{12}_[a-z2-7]{32}$/);
      expect(parseKey(key)).toEqual({ keyId, key });
    }
  });

  it("encodes the secret's bits in RFC 4648 base32 (pinned bytes)", () => {
    const bytes = (n: number) => new Uint8Array(n).fill(0xff);
    expect(generateKey(bytes).key).toBe(`ev_ffffffffffff_${"7".repeat(32)}`);
    const zeros = (n: number) => new Uint8Array(n);
    expect(generateKey(zeros).key).toBe(`ev_000000000000_${"a".repeat(32)}`);
  });

  it("does not parse tokens of other shapes", () => {
    for (const t of [
      "test-token",
      "ev_abc_def",
      `ev_ABCDEFABCDEF_${"a".repeat(32)}`,
      `ev_000000000000_${"a".repeat(31)}_`,
      `ev_000000000000_${"1".repeat(32)}`,
    ]) {
      expect(parseKey(t)).toBeNull();
    }
  });

  it("hashes with the pepper: same key and pepper → same hash; another pepper → another hash", async () => {
    const { key } = generateKey();
    const a = await hashKey(key, "pepper-1");
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(await hashKey(key, "pepper-1")).toBe(a);
    expect(await hashKey(key, "pepper-2")).not.toBe(a);
    expect(sameHash(a, await hashKey(key, "pepper-1"))).toBe(true);
    expect(sameHash(a, await hashKey(key, "pepper-2"))).toBe(false);
  });
});
