import { describe, expect, it } from "vitest";
import { grantSlice, SLICES_PER_SHARD, type ShardBudget } from "../../../src/coordinator/shard-allowance";

const rows = (entries: [number, ShardBudget][]) => new Map(entries);

describe("grantSlice: a shard's next slice of a sharded run's budget", () => {
  it("grants a budget / (SLICES_PER_SHARD × shards) slice on top of what the shard holds", () => {
    const slice = 10 / (SLICES_PER_SHARD * 2);
    expect(grantSlice(10, 2, rows([[0, { granted: 0, spent: 0 }]]), 0)).toBe(slice);
    expect(grantSlice(10, 2, rows([[0, { granted: slice, spent: slice }]]), 0)).toBe(2 * slice);
  });

  it("counts a shard's overshoot (spent beyond its allowance) as held: the next slice starts from its spend", () => {
    expect(grantSlice(10, 2, rows([[0, { granted: 1, spent: 3 }]]), 0)).toBe(3 + 10 / (SLICES_PER_SHARD * 2));
  });

  it("never lets the allowances total more than the budget, and grants nothing once it is all held", () => {
    const held = rows([
      [0, { granted: 4, spent: 1 }],
      [1, { granted: 2, spent: 5.5 }],
    ]);
    // 10 - (4 + 5.5) = 0.5 left: shard 0 gets only that.
    expect(grantSlice(10, 2, held, 0)).toBe(4.5);
    held.set(0, { granted: 4.5, spent: 1 });
    expect(grantSlice(10, 2, held, 1)).toBeNull();
    // 0.7 + 0.2 + 0.1 held of $1 leaves a rounding error (1.1e-16), not a slice.
    const rounded = rows([
      [0, { granted: 0.7, spent: 0 }],
      [1, { granted: 0.2, spent: 0 }],
      [2, { granted: 0.1, spent: 0 }],
    ]);
    expect(grantSlice(1, 3, rounded, 0)).toBeNull();
  });
});
