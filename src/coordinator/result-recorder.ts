/**
 * A result's way into the run, in the steps RunCoordinator.record takes (and a root taking its
 * shards' reports, root-side.ts): its rows stored once, in one transaction with a scenario turn's
 * successor job, the webhook outbox entry and the running spend; then what follows a new result
 * (the watchers, the outbox's alarm, or a shard's report to its root); then the successor's message
 * sent. Each write is synchronous SQL; the awaits fall between the steps, never inside one.
 */
import { log } from "../log";
import { alarmBy } from "./alarm";
import { RESULT_EVENTS_DELAY_MS, type ResultOutbox } from "./event-outbox";
import type { JobTable } from "./job-table";
import type { ResultTable } from "./result-table";
import type { RecordedResult } from "./rpc-types";
import type { RunEvents } from "./run-events";
import type { RunMeta } from "./run-meta";
import type { ScenarioTurns } from "./scenario-turns";
import type { RootOutbox } from "./shard-report";
import { ACCEPTED_SQL, type JobSender } from "./stall-watch";

/**
 * What recording a result uses of its coordinator: its storage, tables and watchers, and its ports
 * and a shard's side as callbacks (the ports read the coordinator's fields when called: a test
 * replaces its clock and sender).
 */
export interface ResultRecorderHost {
  readonly sql: SqlStorage;
  readonly storage: DurableObjectStorage;
  readonly meta: RunMeta;
  readonly jobs: JobTable;
  readonly results: ResultTable;
  readonly outbox: ResultOutbox;
  /** A shard's results its root has not taken (shard-report.ts). */
  readonly toRoot: RootOutbox;
  readonly turns: ScenarioTurns;
  /** The run's watchers (run-events.ts). */
  readonly events: RunEvents;
  now(): number;
  sendJobs: JobSender;
  /** The coordinator's transaction (a rolled-back one reloads its in-memory mirrors). */
  transaction(fn: () => void): void;
  cancelled(): boolean;
  /** This coordinator is a shard of a sharded run (shard-side.ts). */
  isShard(): boolean;
  /** A shard reports its changes to its root soon (shard-side.ts). */
  reportSoon(): Promise<void>;
}

export class ResultRecorder {
  constructor(private readonly host: ResultRecorderHost) {}

  /**
   * The result's rows, once, in one transaction with its outbox entry and the running spend;
   * `renewLease`: a result that does not finish its job renews the job's lease (finishing stamps
   * it anyway). The result's sequence number when it is new, null for a repeat.
   */
  storeResult(result: RecordedResult, renewLease: boolean): { seq: number | null; nextTurn: string | null } {
    const { host } = this;
    let seq: number | null = null;
    let nextTurn: string | null = null;
    host.transaction(() => {
      seq = this.storeRows(result);
      // Created before the turn's own job is finished, so the run never looks over in between.
      if (result.next_turn && host.turns.add(result.next_turn, host.jobs, host.now())) nextTurn = result.next_turn.job_id;
      if (renewLease) host.jobs.renewLease(result.job_id, host.now());
      // A shard's new result waits for its root to take it (shard-report.ts).
      if (seq !== null && host.isShard()) host.toRoot.add(result);
    });
    return { seq, nextTurn };
  }

  /** Inside a transaction: the result's rows, the running spend, the webhook outbox. */
  storeRows(result: RecordedResult): number | null {
    const { host } = this;
    const inserted = host.results.insert(result);
    // A running total, so the budget check on every claim and record does not re-sum the run.
    host.meta.addSpent(inserted.addedUsd);
    if (inserted.addedUnpriced > 0) host.meta.markUnpriced();
    if (inserted.seq !== null && host.meta.resultEvents()) host.outbox.add(result.result_id);
    return inserted.seq;
  }

  /**
   * After new results are stored: the run's watchers see them and the webhook outbox is armed;
   * a shard instead reports them to its root soon. The place for steps that follow a new result.
   */
  async resultRecorded(fresh: readonly (readonly [RecordedResult, number])[]): Promise<void> {
    const { host } = this;
    if (host.isShard()) return host.reportSoon();
    for (const [result, seq] of fresh) {
      host.events.result({
        seq,
        result_id: result.result_id,
        question_id: result.question_id ?? null,
        answering_id: result.answering_id,
        parsing_id: result.parsing_id,
        verdict: result.verdict,
      });
    }
    // A new result of a run with result.created receivers is in the outbox, handed over shortly (alarm).
    if (host.meta.resultEvents()) await alarmBy(host.storage, host.now() + RESULT_EVENTS_DELAY_MS);
  }

  /**
   * A scenario turn's successor, created with the turn's result: in a cancelled run it is skipped
   * at once; still pending (the budget may have skipped it), its message goes to the queue. A send
   * that fails is left to the stall watch, which re-sends jobs the queue never accepted.
   */
  async sendNextTurn(jobId: string): Promise<void> {
    const { host } = this;
    if (host.cancelled()) {
      host.jobs.skipOpen(jobId, host.now());
      return;
    }
    if (host.jobs.row(jobId)?.state !== "pending") return;
    try {
      await host.sendJobs(host.meta.runRef(), [jobId], (ids) => {
        for (const id of ids) host.sql.exec(ACCEPTED_SQL, id, host.now());
      });
    } catch (err) {
      log.warn("scenario_turn_send_failed", { run_id: host.meta.runId(), job_id: jobId, error: String(err) });
    }
  }
}
