// A restarted local stack's first Cron ticks wake every queued or running run's coordinator
// (src/coordinator/volatile-queue.ts wakeActiveRuns): WAKE_PER_TICK a tick, oldest first, so runs
// past the first page are woken at the next tick; and a failed read is tried again at the next
// tick rather than leaving every run asleep until its alarm. The coordinators are stand-ins that
// count their wake-ups; the runs rows are D1's.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { WAKE_PER_TICK, type WakeState, wakeActiveRuns } from "../../src/coordinator/volatile-queue";
import type { Env } from "../../src/env";

const fresh = (): WakeState => ({ done: false, busy: false, after: null });

/** The test bindings with coordinators that record who was woken, and optionally a D1 that fails. */
function bindings(woken: string[], failingDb = false): Env {
  const RUNS = { getByName: (name: string) => ({ snapshot: async () => void woken.push(name) }) };
  const DB = failingDb ? { prepare: () => ({ bind: () => ({ all: async () => Promise.reject(new Error("D1 is down")) }) }) } : env.DB;
  return { ...(env as unknown as Env), RUNS, DB } as unknown as Env;
}

describe("wakeActiveRuns", () => {
  it("wakes the runs still going a page a tick, oldest first, each once, then stops", async () => {
    await env.DB.prepare("UPDATE runs SET status = 'completed' WHERE status IN ('queued', 'running')").run();
    const tenant = `wake-${crypto.randomUUID().slice(0, 8)}`;
    const ids = Array.from(
      { length: WAKE_PER_TICK + 5 },
      (_, i) => `wake-${String(i).padStart(4, "0")}-${crypto.randomUUID().slice(0, 8)}`,
    );
    const insert = (id: string, i: number, status: string) =>
      env.DB.prepare(
        `INSERT INTO runs (run_id, tenant_id, coordinator_name, run_name, benchmark_name, status, total_results, total_jobs, spec_key, created_at, finished_at)
         VALUES (?, ?, ?, NULL, 'b', ?, 1, 1, 'k', ?, NULL)`,
      ).bind(id, tenant, `coord-${id}`, status, new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString());
    await env.DB.batch([...ids.map((id, i) => insert(id, i, i % 2 ? "running" : "queued")), insert(`done-${tenant}`, 0, "completed")]);

    const woken: string[] = [];
    const state = fresh();
    await wakeActiveRuns(bindings(woken), state);
    expect(woken).toEqual(ids.slice(0, WAKE_PER_TICK).map((id) => `coord-${id}`));
    expect(state.done).toBe(false);
    await wakeActiveRuns(bindings(woken), state);
    expect(woken).toEqual(ids.map((id) => `coord-${id}`));
    expect(state.done).toBe(true);
    await wakeActiveRuns(bindings(woken), state);
    expect(woken).toHaveLength(ids.length);
  });

  it("a failed read is tried again at the next tick", async () => {
    await env.DB.prepare("UPDATE runs SET status = 'completed' WHERE status IN ('queued', 'running')").run();
    const woken: string[] = [];
    const state = fresh();
    await wakeActiveRuns(bindings(woken, true), state);
    expect(state).toEqual(fresh());
    await env.DB.prepare(
      `INSERT INTO runs (run_id, tenant_id, coordinator_name, run_name, benchmark_name, status, total_results, total_jobs, spec_key, created_at, finished_at)
       VALUES ('wake-retry', 't', 'coord-wake-retry', NULL, 'b', 'running', 1, 1, 'k', '2099-01-01T00:00:00.000Z', NULL)`,
    ).run();
    await wakeActiveRuns(bindings(woken), state);
    expect(woken).toEqual(["coord-wake-retry"]);
  });
});
