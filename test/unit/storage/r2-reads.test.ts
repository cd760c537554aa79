// R2 reads at the edge are parsed, not cast (issue 13): the run spec, a saved result and a job's
// retry ledger each go through their schema, with a fake bucket holding whatever was written.
import { describe, expect, it } from "vitest";
import { loadLedger } from "../../../src/storage/ledger-store";
import { readSavedResult } from "../../../src/storage/result-store";
import { loadSpec } from "../../../src/storage/spec-store";

function bucket(objects: Record<string, unknown>): R2Bucket {
  return {
    get: async (key: string) =>
      key in objects ? { json: async () => objects[key], text: async () => JSON.stringify(objects[key]) } : null,
  } as unknown as R2Bucket;
}

/** A D1 database with no result rows. */
const noRows = { prepare: () => ({ bind: () => ({ first: async () => null }) }) } as unknown as D1Database;

const spec = {
  run_id: "r-parse-1",
  tenant_id: "acme",
  run_name: null,
  benchmark_name: "b",
  created_at: "2026-11-24T00:00:00.000Z",
  questions: [],
  answering_models: [],
  parsing_models: [],
  replicate_count: 1,
  settings: { evaluation_mode: "template_only", include_extraction_hints: false },
};

describe("loadSpec", () => {
  it("returns the parsed spec, and null while none is written", async () => {
    const run = { run_id: spec.run_id, tenant_id: "acme" };
    expect(await loadSpec(bucket({ "t/acme/runs/r-parse-1/spec.json": spec }), run)).toEqual(spec);
    expect(await loadSpec(bucket({}), { run_id: "r-parse-absent", tenant_id: "acme" })).toBeNull();
  });

  it("refuses an object that is not a spec, naming the key and the field", async () => {
    const run = { run_id: "r-parse-2", tenant_id: "acme" };
    const broken = { ...spec, run_id: "r-parse-2", replicate_count: "one" };
    await expect(loadSpec(bucket({ "t/acme/runs/r-parse-2/spec.json": broken }), run)).rejects.toThrow(
      /t\/acme\/runs\/r-parse-2\/spec\.json is not a run spec: replicate_count/,
    );
  });
});

describe("readSavedResult", () => {
  it("treats an object that is not a result as never saved", async () => {
    const run = { run_id: "r", tenant_id: "acme" };
    expect(
      await readSavedResult(bucket({ "t/acme/runs/r/results/x.json": { metadata: { verdict: "yes" } } }), noRows, run, "x"),
    ).toBeNull();
  });
});

describe("loadLedger", () => {
  const run = { run_id: "r", tenant_id: "acme" };
  const key = "t/acme/runs/r/checkpoints/0.0.1/retries.json";
  it("keeps whole counts ≥ 0 and counts anything else as 0", async () => {
    const saved = { connection: 1, timeout: -2, rate_limit: 2.5, server_error: "3", extra: 9 };
    expect(await loadLedger(bucket({ [key]: saved }), run, "0.0.1", 2)).toEqual({
      connection: 1,
      timeout: 0,
      rate_limit: 0,
      server_error: 0,
    });
  });

  it("starts empty on a first delivery, a missing ledger, or one that is not an object", async () => {
    const empty = { connection: 0, timeout: 0, rate_limit: 0, server_error: 0 };
    expect(await loadLedger(bucket({ [key]: { rate_limit: 4 } }), run, "0.0.1", 1)).toEqual(empty);
    expect(await loadLedger(bucket({}), run, "0.0.1", 2)).toEqual(empty);
    expect(await loadLedger(bucket({ [key]: null }), run, "0.0.1", 2)).toEqual(empty);
    expect(await loadLedger(bucket({ [key]: { rate_limit: 4 } }), run, "0.0.1", 2)).toEqual({ ...empty, rate_limit: 4 });
  });
});
