// The local runtime (scripts/lib/local-runtime.mjs) applies the D1 migrations itself instead of
// `wrangler d1 migrations apply`: the schema must be the one wrangler's command makes, each
// migration recorded once, and a second start on the same state must apply nothing again. Its
// worker's fetches go straight out, not through miniflare's outbound interceptor.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { applyMigrations } from "../../scripts/lib/d1-migrations.mjs";
// @ts-expect-error plain-Node module without types
import { REPO_ROOT, startLocalStack } from "../../scripts/lib/local-stack.mjs";
// @ts-expect-error plain-Node module without types
import { startFakeLlm } from "../fake-llm/server.mjs";

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

describe("the local runtime's outbound fetches", () => {
  /** The CF-Worker header the fake LLM got with one /v1/judge call of a stack started with `opts`. */
  async function cfWorkerHeaderSeen(fake: { url: string; requests: () => { headers: Record<string, string> }[] }, opts: object) {
    const stack = await startLocalStack(opts);
    try {
      const res = await fetch(`${stack.url}/v1/judge`, {
        method: "POST",
        headers: { authorization: `Bearer ${stack.token}`, "content-type": "application/json" },
        body: JSON.stringify({
          input: "What is the capital of France?",
          output: "Paris.",
          config: {
            provider: { id: "j", interface: "openai_compatible", model_name: "judge-model", base_url: `${fake.url}/v1` },
            type: "judge",
            prompt: "Is the answer right?",
          },
        }),
      });
      expect(res.status).toBe(200);
    } finally {
      await stack.stop();
    }
    const last = fake.requests().at(-1);
    expect(last).toBeDefined();
    return last!.headers["cf-worker"];
  }

  it("go straight to the network, not through miniflare's outbound interceptor", async () => {
    const fake = await startFakeLlm({});
    try {
      expect(await cfWorkerHeaderSeen(fake, {})).toBeUndefined();
      // The check sees the hop when it is there: miniflare's interceptor adds CF-Worker to every fetch.
      expect(await cfWorkerHeaderSeen(fake, { outboundInterceptor: true })).toBe("edgeval.example.com");
    } finally {
      await fake.close();
    }
  }, 120_000);
});
