// scripts/mutation.mjs: the score it prints per module and the floor it holds each module to,
// computed from a Stryker JSON report's mutant statuses (Stryker itself is not run here).
import { describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { scoreModule, selectModules, table } from "../../../scripts/mutation.mjs";
// @ts-expect-error plain-Node module without types
import { MUTATION_MODULES } from "../../../stryker.config.mjs";

const mutants = (counts: Record<string, number>) =>
  Object.entries(counts).flatMap(([status, n]) => Array.from({ length: n }, () => ({ status })));

describe("test:mutation scoring", () => {
  it("scores detected over valid mutants: killed and timeouts count, invalid and excluded ones do not", () => {
    const s = scoreModule(mutants({ Killed: 17, Timeout: 1, Survived: 1, NoCoverage: 1, CompileError: 3, RuntimeError: 2, Ignored: 4 }));
    expect(s).toMatchObject({ score: 90, killed: 17, timeout: 1, survived: 1, noCoverage: 1, invalid: 5 });
    expect(s.excluded).toHaveLength(4);
    expect(scoreModule([]).score).toBeNull();
  });

  it("marks a module below its floor, and one without valid mutants too", () => {
    const m = { name: "failure", file: "src/pipeline/failure.ts", floor: 90 };
    const out = table([
      { m, s: scoreModule(mutants({ Killed: 9, Survived: 1 })) },
      { m: { ...m, name: "metric" }, s: scoreModule(mutants({ Killed: 8, Survived: 2, NoCoverage: 1 })) },
      { m: { ...m, name: "empty" }, s: scoreModule([]) },
    ]).split("\n");
    expect(out[1]).toMatch(/^failure\s+90\.00\s+90\s+9\s+0\s+1\s+0\s+0\s+0\s+ok$/);
    expect(out[2]).toMatch(/^metric\s+72\.73\s+90\s+8\s+0\s+2\s+1\s+0\s+0\s+BELOW FLOOR$/);
    expect(out[3]).toMatch(/^empty\s+n\/a\s+90 .*BELOW FLOOR$/);
  });

  it("selects modules by name or path, all by default, and refuses an unknown one", () => {
    expect(selectModules([])).toEqual(MUTATION_MODULES);
    expect(selectModules(["failure", "src/rubric/metric.ts", "--force"]).map((m: { name: string }) => m.name)).toEqual([
      "failure",
      "metric",
    ]);
    expect(() => selectModules(["nope"])).toThrow(/unknown module "nope"/);
  });

  it("holds every module to a floor of at least 90 % and lists each file once", () => {
    const files = MUTATION_MODULES.map((m: { file: string }) => m.file);
    expect(new Set(files).size).toBe(files.length);
    for (const m of MUTATION_MODULES) expect(m.floor, m.name).toBeGreaterThanOrEqual(90);
  });
});
