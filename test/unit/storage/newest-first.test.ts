import { describe, expect, it } from "vitest";
import { EVERY_TENANT, newestFirstPage } from "../../../src/storage/newest-first";

/** A D1 that records the statement it was asked to run and answers no rows. */
function recordingDb() {
  const seen: { sql: string; binds: unknown[] }[] = [];
  const db = {
    prepare: (sql: string) => ({
      bind: (...binds: unknown[]) => ({
        all: async () => {
          seen.push({ sql: sql.replace(/\s+/g, " ").trim(), binds });
          return { results: [] };
        },
      }),
    }),
  } as unknown as D1Database;
  return { db, seen };
}

describe("newestFirstPage", () => {
  it("reads every tenant only from the tenants table: any other table's rows belong to a tenant", async () => {
    const { db, seen } = recordingDb();
    await expect(newestFirstPage(db, { table: "api_keys", idColumn: "key_id", owner: EVERY_TENANT }, 10, null)).rejects.toThrow(
      /api_keys rows belong to a tenant/,
    );
    expect(seen).toEqual([]);
  });

  it("pages the tenants table with no owner condition, after the cursor's row", async () => {
    const { db, seen } = recordingDb();
    await newestFirstPage(db, { table: "tenants", idColumn: "tenant_id", owner: EVERY_TENANT }, 2, { created_at: "t", id: "acme" });
    expect(seen).toEqual([
      {
        sql: "SELECT * FROM tenants WHERE (created_at, tenant_id) < (?, ?) ORDER BY created_at DESC, tenant_id DESC LIMIT ?",
        binds: ["t", "acme", 2],
      },
    ]);
  });

  it("names the owner in every tenant list", async () => {
    const { db, seen } = recordingDb();
    await newestFirstPage(db, { table: "api_keys", idColumn: "key_id", owner: { tenant_id: "acme" } }, 5, null);
    expect(seen[0]!.sql).toBe("SELECT * FROM api_keys WHERE tenant_id = ? ORDER BY created_at DESC, key_id DESC LIMIT ?");
    expect(seen[0]!.binds).toEqual(["acme", 5]);
  });
});
