/**
 * Jobs a restarted local runtime lost. The local job queue (miniflare's queue broker) keeps its
 * messages in memory: stopping `npm start` or `npm run dev` mid-run, or a live reload of `npm run
 * dev`, drops every message the queue had taken and not yet delivered, and ends every consumer
 * invocation mid-job. The coordinators' state is on disk and comes back; their jobs' messages do
 * not. Deployed, a queue keeps an accepted message until it is delivered or its retention ends, so
 * the stall watch leaves accepted jobs to the queue (stall-watch.ts), and locally such a run stayed
 * `running` for the queue's 4-day retention.
 *
 * The queue broker and the worker's isolate live and die with the same workerd process, so the
 * first coordinator of an isolate marks when the queue it sends to began (`queueSince`). In local
 * mode (src/env.ts isLocalMode) a job the queue took before that mark, or took never and was
 * created before it, or ran under a claim made before it, has no message and no consumer: the
 * stall watch re-sends it (`lostJobsClause`), and a coordinator constructed in the new process —
 * by a status poll, the event stream, a job of the run, or its alarm — runs its watch at once (a
 * sharded run's root, which holds no jobs, wakes its shards).
 * With nobody looking, the local Cron Trigger's first ticks in the new process (each minute,
 * scripts/lib/local-cron.mjs) wake every run still queued or running (`wakeActiveRuns`), so an
 * unwatched run resumes within a minute of the restart rather than at its next alarm (≤ 5 min).
 * A workerd that restarted an isolate but kept its queue would only re-send jobs still queued,
 * which their claims run once. Deployed the mark is 0, and nothing changes.
 */
import { type Env, isLocalMode } from "../env";
import { activeRunCoordinators } from "../storage/runs-repo";
import { log } from "../log";
import type { RunMeta } from "./run-meta";

/** When this isolate's first coordinator was constructed (its clock's time). */
let isolateSince: number | undefined;

/** The start of the queue this isolate sends to, when it forgets its messages on a restart; else 0. */
export function queueSince(env: { EDGEVAL_ENV?: unknown }, now: number): number {
  if (!isLocalMode(env)) return 0;
  isolateSince ??= now;
  return isolateSince;
}

/**
 * Jobs (`j`, with their `job_sends` row `s`) no message or consumer holds since the queue began at
 * `?`: open, last changed before it, and not taken by the queue since.
 */
export const LOST_SINCE_SQL = "(j.state IN ('pending', 'running') AND j.updated_at < ? AND (s.accepted_at IS NULL OR s.accepted_at < ?))";

/** Whether the run has jobs a restart lost (the constructor's cue to run the watch now). */
function hasLostJobs(sql: SqlStorage, since: number): boolean {
  if (since <= 0) return false;
  return (
    sql.exec(`SELECT 1 FROM jobs j LEFT JOIN job_sends s ON s.job_id = j.job_id WHERE ${LOST_SINCE_SQL} LIMIT 1`, since, since).toArray()
      .length > 0
  );
}

/**
 * A coordinator constructed after a restart of the local runtime: whoever wakes it first (a status
 * poll, the event stream) has its lost jobs re-sent now (`watchNow`: its alarm at once), not at its
 * next alarm. A sharded run's jobs are in its shards: its root, which notes when it started them,
 * starts them again (idempotent), and each shard's constructor looks at its own.
 */
export function resumeAfterRestart(
  sql: SqlStorage,
  meta: RunMeta,
  since: number,
  wake: { watchNow(): void; wakeShards(): Promise<void> },
): void {
  if (since <= 0) return;
  if (hasLostJobs(sql, since)) return wake.watchNow();
  const shardsStartedAt = Number(meta.get("shards_started_at") ?? Number.POSITIVE_INFINITY);
  if (shardsStartedAt >= since || meta.finishedAt()) return;
  wake.wakeShards().catch((err: unknown) => log.warn("shard_wake_failed", { run_id: meta.runId(), error: String(err) }));
}

/** Runs woken per tick: a restarted stack with more has the rest woken at the next ticks. */
export const WAKE_PER_TICK = 200;

/** Where a process's waking stands: runs woken up to `after` (oldest first); done once a read comes back short. */
export interface WakeState {
  done: boolean;
  busy: boolean;
  after: { created_at: string; run_id: string } | null;
}
const isolateWake: WakeState = { done: false, busy: false, after: null };

/**
 * Local mode, the first Cron ticks of a process: constructs each queued or running run's
 * coordinator (a snapshot of no pairs), whose constructor resumes what the restart lost
 * (`resumeAfterRestart`), WAKE_PER_TICK runs a tick, oldest first, until every run has been
 * woken once. A read that fails is tried again at the next tick, and a tick that comes while
 * another wakes does nothing. Deployed, nothing.
 */
export async function wakeActiveRuns(env: Env, state: WakeState = isolateWake): Promise<void> {
  if (!isLocalMode(env) || state.done || state.busy) return;
  state.busy = true;
  try {
    const page = await activeRunCoordinators(env.DB, WAKE_PER_TICK, state.after);
    for (const run of page) {
      await env.RUNS.getByName(run.coordinator_name)
        .snapshot({ offset: 0, limit: 0 })
        .catch((err: unknown) => log.warn("run_wake_failed", { coordinator: run.coordinator_name, error: String(err) }));
    }
    state.after = page.at(-1) ?? state.after;
    state.done = page.length < WAKE_PER_TICK;
  } catch (err) {
    // The runs stay asleep until the next tick tries again (a status poll or their alarm may come first).
    log.warn("run_wake_read_failed", { error: String(err) });
  } finally {
    state.busy = false;
  }
}
