/**
 * Which jobs the coordinator's watch alarm sends to the queue again. A job message can be lost in
 * three ways, and only those jobs are re-sent (locally a fourth: volatile-queue.ts):
 *
 * - never accepted: the submit (or an earlier alarm) stopped before the queue took its message
 *   (no `job_sends` row), and it is older than a grace that lets the submit finish sending;
 * - its consumer died: running, and its lease ran out (a live consumer renews it with each result);
 * - expired in the queue: accepted and still pending after the queue's retention minus an hour
 *   (a message older than the retention is dropped by the queue).
 *
 * A pending job merely waiting in a long backlog is none of these: re-sending it would double the
 * backlog. Every re-send is stamped as the queue accepts it (`job_sends`), so an alarm that fires
 * twice, or is retried after failing half-way, re-sends each job once.
 */
import type { JobRoute } from "./job-queues";
import { LOST_SINCE_SQL } from "./volatile-queue";

/** A submit sends its messages right after the coordinator's init; this long is plenty to finish. */
export const SEND_GRACE_MS = 5 * 60_000;
/** Cloudflare Queues keep a message 4 days by default (wrangler.toml sets no other retention). */
export const QUEUE_RETENTION_MS = 4 * 24 * 3_600_000;
/** Re-sent this long before the queue would drop it. */
export const RETENTION_MARGIN_MS = 3_600_000;
/** At most this many jobs per alarm; the next alarm takes the rest. */
export const RESEND_PER_ALARM = 1_000;

/** Sends job messages, calling `accepted` with each group of ids once the queue has taken them. */
export type JobSender = (run: JobRoute, jobIds: readonly string[], accepted: (ids: string[]) => void) => Promise<void>;

/**
 * The stalled jobs at `now` (lease: how long a claim holds a job without news; queueSince: when a
 * queue that forgets its messages on a restart began, 0 for a durable one, volatile-queue.ts).
 */
export function stalledJobsSql(now: number, leaseMs: number, queueSince = 0): { sql: string; params: number[] } {
  const restarted = queueSince > 0 ? `OR ${LOST_SINCE_SQL}` : "";
  return {
    sql: `SELECT j.job_id FROM jobs j LEFT JOIN job_sends s ON s.job_id = j.job_id
          WHERE (j.state = 'pending' AND s.job_id IS NULL AND j.updated_at < ?)
             OR (j.state = 'running' AND j.updated_at < ?)
             OR (j.state = 'pending' AND s.accepted_at < ?)
             ${restarted}
          LIMIT ${RESEND_PER_ALARM}`,
    params: [
      now - SEND_GRACE_MS,
      now - leaseMs,
      now - (QUEUE_RETENTION_MS - RETENTION_MARGIN_MS),
      ...(queueSince > 0 ? [queueSince, queueSince] : []),
    ],
  };
}

/** Stamps jobs the queue took: one statement per id (SQLite binds at most 100 parameters per statement). */
export const ACCEPTED_SQL =
  "INSERT INTO job_sends (job_id, accepted_at) VALUES (?, ?) ON CONFLICT(job_id) DO UPDATE SET accepted_at = excluded.accepted_at";

/**
 * A re-sent running job is pending again (its consumer is presumed gone): the redelivery claims
 * it at once instead of waiting out a lease, and the next alarm does not count it as running.
 */
export const RESENT_SQL = "UPDATE jobs SET state = 'pending', updated_at = ? WHERE job_id = ? AND state IN ('pending', 'running')";

/**
 * Re-sends the jobs stalled at `now()`. Stamped per send as the queue takes it: an alarm retried
 * after failing half-way re-sends only the rest.
 */
export async function resendStalled(
  sql: SqlStorage,
  run: JobRoute,
  send: JobSender,
  now: () => number,
  leaseMs: number,
  queueSince = 0,
): Promise<void> {
  const stalled = stalledJobsSql(now(), leaseMs, queueSince);
  const ids = sql
    .exec<{ job_id: string }>(stalled.sql, ...stalled.params)
    .toArray()
    .map((j) => j.job_id);
  if (ids.length === 0) return;
  await send(run, ids, (taken) => {
    const at = now();
    for (const id of taken) {
      sql.exec(RESENT_SQL, at, id);
      sql.exec(ACCEPTED_SQL, id, at);
    }
  });
}

/** Jobs a sharded run's shard sends per alarm (10 sendBatch calls): the next alarm, at once, sends the next chunk. */
export const ENQUEUE_PER_ALARM = 1_000;

/**
 * A shard enqueues its jobs itself, in chunks (submit only stores the spec and the job list):
 * the first ENQUEUE_PER_ALARM pending jobs the queue never took, each stamped as it is taken.
 * Returns whether more are left.
 */
export async function enqueueUnsent(sql: SqlStorage, run: JobRoute, send: JobSender, now: () => number): Promise<boolean> {
  const ids = sql
    .exec<{ job_id: string }>(
      "SELECT j.job_id FROM jobs j LEFT JOIN job_sends s ON s.job_id = j.job_id WHERE j.state = 'pending' AND s.job_id IS NULL LIMIT ?",
      ENQUEUE_PER_ALARM + 1,
    )
    .toArray()
    .map((j) => j.job_id);
  if (ids.length === 0) return false;
  await send(run, ids.slice(0, ENQUEUE_PER_ALARM), (taken) => {
    const at = now();
    for (const id of taken) sql.exec(ACCEPTED_SQL, id, at);
  });
  return ids.length > ENQUEUE_PER_ALARM;
}
