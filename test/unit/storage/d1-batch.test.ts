import { describe, expect, it } from "vitest";
import { chunk, multiRowInsert, rowsPerStatement } from "../../../src/storage/d1-batch";

describe("D1 multi-row inserts", () => {
  it("keeps every statement within 100 bound parameters", () => {
    expect(rowsPerStatement(12)).toBe(8);
    expect(rowsPerStatement(100)).toBe(1);
    expect(() => rowsPerStatement(101)).toThrow(RangeError);
  });

  it("cuts 20 rows of 12 columns into statements of 8, 8 and 4 rows", () => {
    const bound: unknown[][] = [];
    const fakeDb = {
      prepare: (sql: string) => ({ sql, bind: (...args: unknown[]) => (bound.push(args), { sql, args }) }),
    } as unknown as D1Database;
    const cols = Array.from({ length: 12 }, (_, i) => `c${i}`);
    const rows = Array.from({ length: 20 }, (_, r) => cols.map((_, c) => r * 100 + c));
    const stmts = multiRowInsert(fakeDb, "t", cols, rows, "ON CONFLICT DO NOTHING");
    expect(stmts).toHaveLength(3);
    expect(bound.map((b) => b.length)).toEqual([96, 96, 48]);
    expect(bound.flat()).toEqual(rows.flat());
  });

  it("chunks without dropping or repeating items", () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  });
});
