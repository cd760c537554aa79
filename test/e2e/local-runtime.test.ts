// The local runtime (scripts/lib/local-runtime.mjs) applies the D1 migrations itself instead of
// `wrangler d1 migrations apply`: the schema must be the one wrangler's command makes, each
// migration recorded once, and a second start on the same state must apply nothing again.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { applyMigrations, REPO_ROOT, startLocalStack } from "../../scripts/lib/local-stack.mjs";

const dirs: string[] = [];
const tempDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "edgeval-runtime-test-"));
  dirs.push(d);
  return d;
};

/** The local D1 database under a --persist-to directory (one per database, named by a hash). */
function openD1(persistTo: string): DatabaseSync {
  const dir = path.join(persistTo, "v3/d1/miniflare-D1DatabaseObject");
  const files = fs.readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  expect(files).toHaveLength(1);
  return new DatabaseSync(path.join(dir, files[0]!), { readOnly: true });
}

/** Every table, index and trigger, whitespace-normalised; d1_migrations' own layout aside. */
function schema(db: DatabaseSync): Record<string, string> {
  const rows = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'")
    .all() as { name: string; sql: string }[];
  return Object.fromEntries(rows.filter((r) => r.name !== "d1_migrations").map((r) => [r.name, r.sql.replace(/\s+/g, " ")]));
}

const migrationFiles = () =>
  fs
    .readdirSync(path.join(REPO_ROOT, "migrations"))
    .filter((f) => f.endsWith(".sql"))
    .sort();

describe("the local runtime's D1 migrations", () => {
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it("makes the schema wrangler's migrations apply makes, records each migration once, and applies none again", async () => {
    const ours = tempDir();
    for (let start = 0; start < 2; start++) {
      const stack = await startLocalStack({ persistTo: ours });
      try {
        const res = await fetch(`${stack.url}/v1/runs`, { headers: { authorization: `Bearer ${stack.token}` } });
        expect(res.status).toBe(200);
      } finally {
        await stack.stop();
      }
    }
    const wranglers = tempDir();
    await applyMigrations({ persistTo: wranglers });

    const db = openD1(ours);
    const applied = (db.prepare("SELECT name FROM d1_migrations ORDER BY id").all() as { name: string }[]).map((r) => r.name);
    expect(applied).toEqual(migrationFiles());
    const expected = schema(openD1(wranglers));
    expect(Object.keys(expected).length).toBeGreaterThan(20);
    expect(schema(db)).toEqual(expected);
  }, 120_000);
});
