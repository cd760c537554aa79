/**
 * The run's start and end as the outside sees them: its first claim tells the watchers and D1 it
 * is running; a job finishing may end the run, which is stamped once, mirrored to D1 (d1-mirror.ts)
 * and announced to the watchers and the webhooks (event-outbox.ts). A shard instead tells its root
 * in its next report (shard-side.ts). RunCoordinator holds one; cancel.ts and root-side.ts end the
 * run through the same finishIfDone.
 */
import type { Env } from "../env";
import type { RunStatus } from "../storage/runs-repo";
import { alarmBy } from "./alarm";
import { mirrorStatus } from "./d1-mirror";
import { flushEvents, type ResultOutbox } from "./event-outbox";
import type { JobTable } from "./job-table";
import type { PairWindow } from "./progress";
import type { RunSnapshot } from "./rpc-types";
import type { RunEvents } from "./run-events";
import type { RunMeta } from "./run-meta";

/** What the run's start and end use of its coordinator: its storage, tables and watchers, the rest as callbacks. */
export interface RunLifecycleHost {
  readonly env: Env;
  readonly storage: DurableObjectStorage;
  readonly meta: RunMeta;
  readonly jobs: JobTable;
  readonly outbox: ResultOutbox;
  /** The run's watchers (run-events.ts). */
  readonly events: RunEvents;
  now(): number;
  /** This coordinator is a shard of a sharded run (shard-side.ts). */
  isShard(): boolean;
  /** A shard reports its changes to its root soon (shard-side.ts). */
  reportSoon(): Promise<void>;
  /** Jobs not yet done, dead or skipped (run-view.ts). */
  openJobs(): number;
  /** The coordinator's snapshot (its RPC method). */
  snapshot(pairs?: PairWindow): Promise<RunSnapshot | null>;
}

export class RunLifecycle {
  constructor(private readonly host: RunLifecycleHost) {}

  /** The run's first claim: watchers and D1 say running (a shard tells its root in its next report). */
  async runStarted(): Promise<void> {
    if (this.host.isShard()) return this.host.reportSoon();
    this.host.events.statusChanged();
    await this.syncD1Status("running", null);
  }

  /** Callers get nothing back: a snapshot per finished job would re-aggregate the run each time. */
  async finishJob(jobId: string, state: "done" | "dead"): Promise<void> {
    this.host.jobs.finish(jobId, state, this.host.now());
    await this.finishIfDone();
  }

  /**
   * When every job is done, dead or skipped: stamps the end once, mirrors the status to D1 and
   * emits the run's end event. The check and the stamp are synchronous, so of two last jobs
   * finishing at once only one gets past them: one event per run.
   */
  async finishIfDone(): Promise<void> {
    const { host } = this;
    if (host.isShard()) return host.reportSoon();
    if (host.openJobs() > 0 || host.meta.finishedAt()) return;
    const finishedAt = new Date(host.now()).toISOString();
    host.meta.set("finished_at", finishedAt);
    await host.storage.deleteAlarm();
    // Only the status is needed here: no pair summaries (a run may have thousands of pairs).
    const snap = (await host.snapshot({ offset: 0, limit: 0 }))!;
    await this.syncD1Status(snap.status, finishedAt);
    host.events.finished();
    const eventsDue = await this.flushEvents();
    if (eventsDue !== null) await alarmBy(host.storage, eventsDue);
  }

  /** Hands the webhook events over (event-outbox.ts): when to come back, or null when none is left. */
  flushEvents(): Promise<number | null> {
    const { host } = this;
    return flushEvents({
      env: host.env,
      meta: host.meta,
      outbox: host.outbox,
      snapshot: (pairs) => host.snapshot(pairs),
      now: () => host.now(),
    });
  }

  syncD1Status(status: RunStatus, finishedAt: string | null): Promise<void> {
    return mirrorStatus(this.host.env, this.host.meta, status, finishedAt);
  }
}
