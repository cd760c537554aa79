import { describe, expect, it } from "vitest";
import { chunk, jsonRowsInsert } from "../../../src/storage/d1-batch";

function fakeDb() {
  const bound: unknown[][] = [];
  const db = {
    prepare: (sql: string) => ({ sql, bind: (...args: unknown[]) => (bound.push(args), { sql, args }) }),
  } as unknown as D1Database;
  return { db, bound };
}

describe("D1 inserts of many rows", () => {
  it("sends 200 rows of 12 columns as one statement with one bound value, whatever the column count", () => {
    const { db, bound } = fakeDb();
    const cols = Array.from({ length: 12 }, (_, i) => `c${i}`);
    const rows = Array.from({ length: 200 }, (_, r) => cols.map((_, c) => (c % 2 ? `r${r}c${c}` : r * 100 + c)));
    const stmts = jsonRowsInsert(db, "t", cols, rows, "ON CONFLICT DO NOTHING") as unknown as { sql: string }[];
    expect(stmts).toHaveLength(1);
    expect(stmts[0]!.sql).toContain("FROM json_each(?) WHERE true ON CONFLICT DO NOTHING");
    expect(bound).toHaveLength(1);
    expect(JSON.parse(bound[0]![0] as string)).toEqual(rows);
  });

  it("cuts the rows at maxChars of JSON without dropping, repeating or reordering any", () => {
    const { db, bound } = fakeDb();
    const rows = Array.from({ length: 50 }, (_, r) => [`row-${r}`, "x".repeat(r * 10)]);
    const stmts = jsonRowsInsert(db, "t", ["k", "v"], rows, "", 1_000);
    expect(stmts.length).toBeGreaterThan(5);
    for (const [json] of bound) expect((json as string).length <= 1_000 || JSON.parse(json as string).length === 1).toBe(true);
    expect(bound.flatMap(([json]) => JSON.parse(json as string))).toEqual(rows);
  });

  it("chunks without dropping or repeating items", () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  });
});
