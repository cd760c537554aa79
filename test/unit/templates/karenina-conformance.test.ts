/**
 * Conformance with Karenina's own primitives. `karenina-primitive-cases.json` holds 2,120 rows
 * `[type, params, extracted, ground_truth, outcome]` produced by running Karenina's
 * `schemas/primitives/comparisons.py` and `trace.py` (biocypher/karenina main, with pydantic 2 and
 * python-dateutil 2.9) on generated inputs, where outcome is `{check, score}` (score clamped as
 * `_compute_field_results` does, falling back to the binary result if `score()` raises),
 * `{trace}` for `check_trace(raw)`, or `{error}` when `check()` raised. Dates in the rows are
 * complete, so dateutil's "missing parts from today" never applies.
 */
import { describe, expect, it } from "vitest";
import { PRIMITIVE_NAMES, PRIMITIVES, type PrimitiveName } from "../../../src/templates";
import type { AnyPrimitive } from "../../../src/templates/primitives/types";
import { VerifyWithSchema } from "../../../src/templates/primitives/verify-with";
import rows from "./karenina-primitive-cases.json";

type Outcome = { check: boolean; score: number } | { trace: boolean } | { error: string };
type Row = [PrimitiveName, Record<string, unknown>, unknown, unknown, Outcome];

function outcomeOf([type, params, x, gt, expected]: Row): Outcome {
  const p = PRIMITIVES[type] as unknown as AnyPrimitive;
  const validated = VerifyWithSchema.parse({ type, params }).params;
  try {
    if ("trace" in expected) return { trace: p.checkTrace!(x as string, validated) };
    const check = p.check(x, gt, validated);
    let score: number;
    try {
      const s = p.score(x, gt, validated);
      score = Number.isNaN(s) ? 0 : Math.min(1, Math.max(0, s));
    } catch {
      score = check ? 1 : 0;
    }
    return { check, score };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

const byType = new Map<string, Row[]>();
for (const row of rows as Row[]) byType.set(row[0], [...(byType.get(row[0]) ?? []), row]);

describe("every primitive gives Karenina's verdict and score on Karenina's own outputs", () => {
  it("covers every primitive except SemanticMatch (whose Karenina check() always raises)", () => {
    expect([...byType.keys()].sort()).toEqual(PRIMITIVE_NAMES.filter((n) => n !== "SemanticMatch").sort());
  });
  it.each([...byType.keys()])("%s", (type) => {
    const mismatches = byType.get(type)!.flatMap((row) => {
      const got = outcomeOf(row);
      const want = row[4];
      const same =
        "error" in want
          ? "error" in got
          : "trace" in want
            ? "trace" in got && got.trace === want.trace
            : "check" in got && got.check === want.check && Math.abs(got.score - want.score) < 1e-9;
      return same ? [] : [{ params: row[1], extracted: row[2], ground_truth: row[3], karenina: want, edgeval: got }];
    });
    expect(mismatches).toEqual([]);
  });
});
