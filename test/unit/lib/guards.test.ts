import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GUARDS, guardOn, switchGuardOffForTest } from "../../../src/lib/guards";

const src = path.join(import.meta.dirname, "../../../src");
const files = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));

afterEach(() => switchGuardOffForTest("claim_lease", false));

describe("reliability guards' test-only switches", () => {
  it("are all on unless a test switches one off", () => {
    for (const g of Object.keys(GUARDS) as (keyof typeof GUARDS)[]) expect(guardOn(g)).toBe(true);
    switchGuardOffForTest("claim_lease");
    expect(guardOn("claim_lease")).toBe(false);
    expect(guardOn("idempotency_key")).toBe(true);
  });

  it("cannot be switched from production code: nothing under src/ but the guards module names the setter", () => {
    const naming = files(src).filter((f) => fs.readFileSync(f, "utf8").includes("switchGuardOffForTest"));
    expect(naming.map((f) => path.relative(src, f))).toEqual(["lib/guards.ts"]);
  });
});
