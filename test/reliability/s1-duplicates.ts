/**
 * Scenario 1's runs, shared by its test (at the suite's size) and the guard tests (small, with a
 * guard switched off): every message delivered twice — one after the other, side by side
 * (`Promise.all`), the copy arriving while the first is mid-job — and a batch that throws after
 * acking, under the local broker (acked messages come back) and the production one (they do not).
 */
import { startCapturedRun } from "../integration/limits-support";
import { type BrokerOptions, type BrokerStats, deliveries, drain, type Delivery } from "./broker";
import { checkRun, type CheckOutcome } from "./invariants";
import { workload } from "./scenario";

export type DuplicateVariant = "sequential" | "concurrent" | "mid-job" | "throw-local" | "throw-production";

export interface ScenarioRun {
  check: CheckOutcome;
  stats: BrokerStats;
  faults: number;
  size: string;
}

/** The same messages (same ids and bodies) delivered again: the queue's at-least-once duplicate. */
export const again = (ds: readonly Delivery[]): Delivery[] => ds.map((d) => ({ ...d }));

/** Originals and their duplicates in alternating batches of 10, so each pair runs side by side. */
function interleaved(ds: Delivery[]): Delivery[] {
  const out: Delivery[] = [];
  for (let i = 0; i < ds.length; i += 10) out.push(...ds.slice(i, i + 10), ...again(ds.slice(i, i + 10)));
  return out;
}

/** `jobs` jobs of two replicates and two judges (half the answers long enough for R2), fake replies of 20 ms. */
export async function duplicateScenario(variant: DuplicateVariant, jobs: number): Promise<ScenarioRun> {
  const w = await workload(`s1-${variant}`, { questions: jobs / 2, replicates: 2, judges: 2, latencyMs: 20 });
  const { runId, bodies } = await startCapturedRun(w.body);
  const ds = deliveries(bodies);
  let stats: BrokerStats;
  let faults = ds.length;
  if (variant === "sequential") {
    await drain(ds);
    stats = await drain(again(ds));
  } else if (variant === "concurrent") {
    stats = await drain(interleaved(ds), { parallel: 4 });
  } else if (variant === "mid-job") {
    // The copies start 30 ms later (a fake reply takes 20): the first copies are past their claim and answer call.
    stats = await drain([...ds, ...again(ds).map((d) => ({ ...d, startAfterMs: 30 }))], { parallel: jobs / 5 });
  } else {
    // Every batch's first delivery dies after its handler returned (acks and retries given).
    const mode: BrokerOptions["mode"] = variant === "throw-local" ? "local" : "production";
    stats = await drain(ds, { mode, crashAfter: ({ messages }) => messages.every((m) => m.attempts === 1) });
    faults = stats.batchesThrown;
  }
  const check = await checkRun({ runId, keys: w.keys, calls: { models: [w.answerer, ...w.judges], baseline: w.baselineCalls } });
  return { check, stats, faults, size: `${jobs} jobs / ${w.keys.length} results` };
}
