/**
 * Cancelling a run (POST /v1/runs/:id/cancel), inside its RunCoordinator. The flag is set before
 * anything is awaited, so every claim, record and gate refresh answered after the call began sees
 * it (src/jobs/cancel-gate.ts stops the jobs' model calls). Jobs not yet started are skipped now,
 * jobs that are running finish the calls in flight, record them and stop (their claim or release
 * skips them); the run ends `cancelled` by statusOf's precedence once the last of them is closed,
 * through the coordinator's one finish path, so its webhook event is emitted once.
 */
import type { RunStatus } from "../storage/runs-repo";

export type CancelOutcome =
  /** `first`: this call cancelled it (a repeat answers the same, without a second effect). */
  | { kind: "cancelled"; first: boolean; cancelled_at: string }
  /** The run had ended before the cancel: nothing changed. */
  | { kind: "finished"; status: RunStatus }
  | { kind: "unknown" };

/** What cancelling needs of the coordinator, as callbacks (its state stays in coordinator.ts and the modules it wires up). */
export interface CancelHost {
  meta(k: string): string | undefined;
  setMeta(k: string, v: string): void;
  now(): number;
  /** Moves every pending job to skipped (a sharded run's root tells its shards: async). */
  skipPending(): void | Promise<void>;
  /** The run's status as the snapshot reports it. */
  status(): Promise<RunStatus>;
  syncD1Status(status: RunStatus, finishedAt: string | null): Promise<void>;
  finishIfDone(): Promise<void>;
}

const CANCELLED_AT = "cancelled_at";

export const isCancelled = (meta: (k: string) => string | undefined): boolean => meta(CANCELLED_AT) !== undefined;

export async function cancelRun(host: CancelHost): Promise<CancelOutcome> {
  if (!host.meta("run_id")) return { kind: "unknown" };
  const already = host.meta(CANCELLED_AT);
  if (already) return { kind: "cancelled", first: false, cancelled_at: already };
  if (host.meta("finished_at")) return { kind: "finished", status: await host.status() };
  const at = new Date(host.now()).toISOString();
  // Synchronous up to here: no claim or record interleaves between the check and the flag.
  host.setMeta(CANCELLED_AT, at);
  const skipping = host.skipPending();
  if (skipping) await skipping;
  // The D1 listing says cancelled at once; finished_at follows when the last running job stops.
  await host.syncD1Status("cancelled", null);
  await host.finishIfDone();
  return { kind: "cancelled", first: true, cancelled_at: at };
}
