import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { connect } from "../../../src/judges/graph";
import type { JudgeNode, Outer } from "../../../src/judges/types";

const layer = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, deps: [] as string[] }) as unknown as JudgeNode);
const edgesOf = (to: JudgeNode[]) => to.flatMap((t) => t.deps.map((d) => `${d}→${t.id}`));

describe("graph: edge counts for any layer sizes", () => {
  it("dense n·m, broadcast n and cumulative n(n+1)/2 (equal sizes only), last m — and every edge goes forward", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom<Outer>("dense", "broadcast", "cumulative", "last"),
        (n, m, outer) => {
          const from = layer("a", n);
          const to = layer("b", m);
          const err = connect(from, to, outer);
          if ((outer === "broadcast" || outer === "cumulative") && n !== m) {
            expect(err).toMatch(/same size/);
            return;
          }
          expect(err).toBeUndefined();
          const edges = edgesOf(to);
          const expected = { dense: n * m, broadcast: n, cumulative: (n * (n + 1)) / 2, last: m }[outer];
          expect(edges).toHaveLength(expected);
          expect(new Set(edges).size).toBe(edges.length);
          for (const e of edges) expect(e).toMatch(/^a\d+→b\d+$/);
          if (outer === "last") expect(new Set(to.flatMap((t) => t.deps))).toEqual(new Set([`a${n - 1}`]));
        },
      ),
      { numRuns: 200 },
    );
  });
});
