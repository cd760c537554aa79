import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GUARDS, guardOn, switchGuardOffForTest } from "../../../src/lib/guards";
import { armFaultPointsForTest, faultPoint } from "../../../src/lib/fault-points";

const src = path.join(import.meta.dirname, "../../../src");
const files = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));

afterEach(() => switchGuardOffForTest("claim_lease", false));

describe("reliability guards' and fault points' test-only switches", () => {
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

  it("fault points do nothing unless a test arms them, and nothing under src/ but their module can", () => {
    expect(() => faultPoint("after_answer", { run_id: "r", job: "q/a/1" })).not.toThrow();
    armFaultPointsForTest((point) => {
      throw new Error(`crash at ${point}`);
    });
    try {
      expect(() => faultPoint("before_record", { run_id: "r", job: "q/a/1" })).toThrow("crash at before_record");
    } finally {
      armFaultPointsForTest(null);
    }
    const naming = files(src).filter((f) => fs.readFileSync(f, "utf8").includes("armFaultPointsForTest"));
    expect(naming.map((f) => path.relative(src, f))).toEqual(["lib/fault-points.ts"]);
  });
});
