/**
 * A run's scenario turns (src/scenarios, src/jobs/scenario-turn.ts). A scenario is a chain of
 * jobs, one per turn: only each chain's turn 0 exists when the run starts; the next turn's job is
 * created here when the previous turn's result is recorded (in the same transaction, so the run
 * cannot look finished in between), with the scenario state it starts from, and its message is
 * sent then. A turn recorded twice creates its successor once (the job id is the key), and a
 * successor whose message never reached the queue is re-sent by the stall watch like any job.
 *
 * Turn jobs are named `s<scenario>.<answering>.<parsing>.<replicate>.<turn>` (src/submit/spec.ts):
 * their count per (answering, parsing) pair is how many results the pair will have beyond its
 * questions' — known only as the chains advance, so a run's total grows with them.
 */
import type { JobTable } from "./job-table";

/** What a turn's record carries for its successor (RecordedResult.next_turn). */
export interface NextTurn {
  job_id: string;
  /** The scenario state the successor starts from (JSON, src/scenarios/state.ts). */
  state: string;
}

const TURN_JOB = /^s\d+\.(\d+)\.(\d+)\.\d+\.\d+$/;
/**
 * Turn jobs, and only they, have ids that start with "s" (src/submit/spec.ts jobIds): a range of
 * the primary key reads just them, where LIKE 's%' (case-insensitive, so no index) read every job
 * of the run on each status poll.
 */
const TURN_JOBS = "job_id >= 's' AND job_id < 't'";

export class ScenarioTurns {
  constructor(private readonly sql: SqlStorage) {}

  /** The successor's job (pending) and its state; false when it already existed. */
  add(next: NextTurn, jobs: JobTable, now: number): boolean {
    if (!jobs.insertIfNew(next.job_id, now)) return false;
    this.sql.exec("INSERT INTO scenario_states (job_id, state) VALUES (?, ?) ON CONFLICT(job_id) DO NOTHING", next.job_id, next.state);
    return true;
  }

  /** The state a turn job starts from (turn 0 has none: it starts at the entry node). */
  state(jobId: string): string | null {
    if (!jobId.startsWith("s")) return null;
    return this.sql.exec<{ state: string }>("SELECT state FROM scenario_states WHERE job_id = ?", jobId).toArray()[0]?.state ?? null;
  }

  /** Turn jobs per (answering, parsing) pair, keyed `answering\0parsing` (ids from the run's model lists). */
  perPair(answering: readonly string[], parsing: readonly string[]): Map<string, number> {
    const out = new Map<string, number>();
    for (const { job_id } of this.sql.exec<{ job_id: string }>(`SELECT job_id FROM jobs WHERE ${TURN_JOBS}`)) {
      const m = TURN_JOB.exec(job_id);
      const a = m && answering[Number(m[1])];
      const p = m && parsing[Number(m[2])];
      if (a === undefined || p === undefined || !a || !p) continue;
      const key = `${a}\u0000${p}`;
      out.set(key, (out.get(key) ?? 0) + 1);
    }
    return out;
  }

  /** Every turn job the run has so far. */
  count(): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM jobs WHERE ${TURN_JOBS}`).one().n;
  }
}
