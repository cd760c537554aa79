/**
 * A RunCoordinator's parts, built and wired to each other (coordinator.ts is the RPC surface over
 * them): its tables, the run's state, its watchers, a result's recording, the run's start and end,
 * and a sharded run's two sides. A part that calls one built after it does so through a callback,
 * read when called; so are the coordinator's ports (its clock, job sender and heartbeat), which a
 * test replaces after construction.
 */
import type { Env } from "../env";
import { ResultOutbox } from "./event-outbox";
import { JobTable } from "./job-table";
import type { PairWindow } from "./progress";
import { ResultRecorder } from "./result-recorder";
import { ResultTable } from "./result-table";
import type { RunSnapshot } from "./rpc-types";
import { RunEvents } from "./run-events";
import { RunLifecycle } from "./run-lifecycle";
import { RunMeta } from "./run-meta";
import { RunView } from "./run-view";
import { RunTotals } from "./run-totals";
import { RootSide } from "./root-side";
import { ScenarioTurns } from "./scenario-turns";
import { RootOutbox } from "./shard-report";
import { ShardSide } from "./shard-side";
import type { JobSender } from "./stall-watch";

/** What the parts take from the coordinator: its env and storage, and its ports and steps as callbacks. */
export interface CoordinatorPorts {
  readonly env: Env;
  readonly storage: DurableObjectStorage;
  now(): number;
  sendJobs: JobSender;
  /** When the job queue began, if it forgets its messages on a restart; else 0 (volatile-queue.ts). */
  queueSince(): number;
  /** Between two heartbeats of an idle event stream. */
  heartbeatMs(): number;
  /** The coordinator's transaction (a rolled-back one reloads its in-memory mirrors). */
  transaction(fn: () => void): void;
  /** The coordinator's snapshot (its RPC method): the run's status at its end, its end event's summary. */
  snapshot(pairs?: PairWindow): Promise<RunSnapshot | null>;
}

export interface CoordinatorParts {
  readonly meta: RunMeta;
  readonly jobs: JobTable;
  readonly results: ResultTable;
  readonly totals: RunTotals;
  readonly turns: ScenarioTurns;
  readonly state: RunView;
  readonly events: RunEvents;
  readonly recorder: ResultRecorder;
  readonly lifecycle: RunLifecycle;
  readonly shardSide: ShardSide;
  readonly rootSide: RootSide;
}

export function coordinatorParts(ports: CoordinatorPorts): CoordinatorParts {
  const { env, storage, now, transaction } = ports;
  const sql = storage.sql;
  const totals = new RunTotals(sql, transaction);
  totals.ensure();
  const meta = new RunMeta(sql);
  const jobs = new JobTable(sql);
  const results = new ResultTable(sql);
  const outbox = new ResultOutbox(sql);
  /** A sharded run (shards.ts): in a shard, results its root has not taken; in either, the results refused for good. */
  const toRoot = new RootOutbox(sql);
  const turns = new ScenarioTurns(sql);
  const state = new RunView({
    meta,
    jobs,
    totals,
    turns,
    toRoot,
    isShard: () => shardSide.isShard(),
    shardJobCounts: (total) => rootSide.jobCounts(total),
    shardsSpent: () => rootSide.shardsSpent(),
  });
  /** The run's watchers (GET /v1/runs/:id/events, run-events.ts). */
  const events = new RunEvents(
    {
      resultsAfter: (seq, limit) => results.after(seq, limit),
      progress: () => ({
        done: totals.resultCounts().done,
        total: meta.totalResults() + turns.count(),
        // Unknown once an unpriced call is in, as GET /v1/runs/:id's usage.total.cost_usd.
        cost_usd: meta.hasUnpriced() ? null : meta.spentUsd(),
      }),
      status: () => state.status(),
      finishedAt: () => meta.finishedAt() ?? null,
      now,
    },
    { heartbeatMs: ports.heartbeatMs },
  );
  // A shard's steps differ from an unsharded run's: where they do, the step asks the shard's side.
  const shardSteps = { isShard: () => shardSide.isShard(), reportSoon: () => shardSide.reportSoon() };
  const recorder = new ResultRecorder({
    ...shardSteps,
    sql,
    storage,
    meta,
    jobs,
    results,
    outbox,
    toRoot,
    turns,
    events,
    now,
    sendJobs: ports.sendJobs,
    transaction,
    cancelled: () => state.cancelled(),
  });
  const lifecycle = new RunLifecycle({
    ...shardSteps,
    env,
    storage,
    meta,
    jobs,
    outbox,
    events,
    now,
    openJobs: () => state.openJobs(),
    snapshot: ports.snapshot,
  });
  // A sharded run's two roles (shards.ts): a shard's (shard-side.ts) and its root's (root-side.ts).
  // What both sides of a sharded run use; the ports are read when called (a test replaces them).
  const shared = { sql, meta, toRoot, coordinator: (name: string) => env.RUNS.getByName(name), now, transaction };
  const shardSide = new ShardSide({
    ...shared,
    storage,
    jobs,
    sendJobs: ports.sendJobs,
    queueSince: ports.queueSince,
    cancelled: () => state.cancelled(),
  });
  const rootSide = new RootSide({
    ...shared,
    budgetSpent: () => state.budgetSpent(),
    storeRows: (result) => recorder.storeRows(result),
    resultRecorded: (fresh) => recorder.resultRecorded(fresh),
    runStarted: () => lifecycle.runStarted(),
    finishIfDone: () => lifecycle.finishIfDone(),
  });
  return { meta, jobs, results, totals, turns, state, events, recorder, lifecycle, shardSide, rootSide };
}
