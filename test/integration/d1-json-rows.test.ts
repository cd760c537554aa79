/**
 * jsonRowsInsert (src/storage/d1-batch.ts) against D1 itself: rows sent as one JSON value are stored
 * exactly as the same rows inserted one statement each with their values bound — every string,
 * every number to the last bit, every null, with the same SQLite types — and the conflict clause
 * still applies.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { jsonRowsInsert } from "../../src/storage/d1-batch";

const COLUMNS = ["k", "s", "n", "r"] as const;
const awkward = [
  "plain",
  "",
  'quotes " and \\ backslash',
  "newline\nand\ttab",
  "unicode é 中文 🧪",
  "lone surrogate \ud800 here",
  "nul \u0000 inside",
  "x".repeat(40_000),
];
const numbers = [0, -1, 1, 2 ** 53 - 1, -(2 ** 53) + 1, 0.1 + 0.2, 1e-7, 3.4e-6, 123456.789, 5e-324, 1.7976931348623157e308, -0.5];

function rows(prefix: string): unknown[][] {
  const out: unknown[][] = [];
  awkward.forEach((s, i) => out.push([`${prefix}s${i}`, s, i, null]));
  numbers.forEach((n, i) => out.push([`${prefix}n${i}`, null, n, n]));
  return out;
}

async function table(name: string): Promise<void> {
  await env.DB.prepare(`CREATE TABLE IF NOT EXISTS ${name} (k TEXT PRIMARY KEY, s TEXT, n INTEGER, r REAL)`).run();
}

const stored = async (name: string) =>
  (
    await env.DB.prepare(
      `SELECT substr(k, 2) AS k, s, n, r, typeof(s) AS ts, typeof(n) AS tn, typeof(r) AS tr FROM ${name} ORDER BY k`,
    ).all()
  ).results;

describe("rows sent as one JSON value", () => {
  it("are stored exactly as the same rows bound a value each", async () => {
    await table("json_rows_a");
    await table("json_rows_b");
    const insert = env.DB.prepare("INSERT INTO json_rows_a (k, s, n, r) VALUES (?, ?, ?, ?)");
    await env.DB.batch(rows("a").map((row) => insert.bind(...row)));
    const statements = jsonRowsInsert(env.DB, "json_rows_b", COLUMNS, rows("b"), "ON CONFLICT DO NOTHING");
    expect(statements).toHaveLength(1);
    await env.DB.batch(statements);
    const [a, b] = [await stored("json_rows_a"), await stored("json_rows_b")];
    expect(b).toHaveLength(awkward.length + numbers.length);
    expect(b).toEqual(a);
  });

  it("cut into several statements past maxChars, none lost, and the upsert clause applies to each", async () => {
    await table("json_rows_c");
    const all = rows("c");
    const statements = jsonRowsInsert(env.DB, "json_rows_c", COLUMNS, all, "ON CONFLICT DO NOTHING", 20_000);
    expect(statements).toHaveLength(3); // the rows before the 40,000-character one, it alone, the rest
    await env.DB.batch(statements);
    const update = "ON CONFLICT(k) DO UPDATE SET s = excluded.s";
    await env.DB.batch(jsonRowsInsert(env.DB, "json_rows_c", COLUMNS, [["cs0", "changed", 0, null]], update));
    const got = await stored("json_rows_c");
    expect(got).toHaveLength(all.length);
    expect(got.find((r) => r.k === "s0")?.s).toBe("changed");
  });
});
