import { describe, expect, it } from "vitest";
import { KekMissing, parseKek, seal, secretAad, unseal } from "../../../src/lib/secret-crypto";

const KEKS = parseKek("1:first-kek-secret 2:second-kek-secret");

describe("tenant secret encryption", () => {
  it("round-trips under the newest KEK version, with a fresh IV per write and no plaintext in the output", async () => {
    const a = await seal(KEKS, secretAad("acme", "OPENAI"), "sk-canary-123");
    const b = await seal(KEKS, secretAad("acme", "OPENAI"), "sk-canary-123");
    expect(a.kek_version).toBe(2);
    expect(a.iv).not.toBe(b.iv);
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(JSON.stringify(a)).not.toContain("canary");
    expect(await unseal(KEKS, secretAad("acme", "OPENAI"), a)).toBe("sk-canary-123");
  });

  it("refuses another tenant's or another name's AAD, and a tampered ciphertext", async () => {
    const s = await seal(KEKS, secretAad("acme", "OPENAI"), "sk-canary-123");
    await expect(unseal(KEKS, secretAad("other", "OPENAI"), s)).rejects.toThrow();
    await expect(unseal(KEKS, secretAad("acme", "ANTHROPIC"), s)).rejects.toThrow();
    const bytes = atob(s.ciphertext);
    const flipped = btoa(String.fromCharCode(bytes.charCodeAt(0) ^ 1) + bytes.slice(1));
    await expect(unseal(KEKS, secretAad("acme", "OPENAI"), { ...s, ciphertext: flipped })).rejects.toThrow();
  });

  it("decrypts rows of an older KEK version while a newer one encrypts", async () => {
    const old = await seal(parseKek("first-kek-secret"), "t|n", "v");
    expect(old.kek_version).toBe(1);
    expect(await unseal(KEKS, "t|n", old)).toBe("v");
    await expect(unseal(parseKek("2:second-kek-secret"), "t|n", old)).rejects.toBeInstanceOf(KekMissing);
    await expect(seal(parseKek(undefined), "t|n", "v")).rejects.toBeInstanceOf(KekMissing);
  });
});
