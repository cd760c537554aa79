/**
 * What the RunCoordinator's RPC methods take and answer (coordinator.ts): the run it is started
 * with, a claim's answer, a recorded result, the run's snapshot. batch-ops.ts wraps claim, record
 * and saveAnswer into the operations of one applyBatch call.
 */
import type { TraitAggregate, TraitObservation } from "../rubric/aggregate";
import type { Verdict } from "../pipeline/verdict";
import type { RunStatus } from "../storage/runs-repo";
import type { RunManifest, withActualModels } from "./manifest";
import type { PairSummary } from "./progress";
import type { RunUsage, UsageRow } from "./cost";
import type { JobCounts } from "./job-table";
import type { ShardPlan } from "./shards";
import type { NextTurn } from "./scenario-turns";

export interface InitRun {
  run_id: string;
  /** The owning tenant (absent on coordinators of runs from before tenants: tenant `default`). */
  tenant_id?: string;
  job_ids: string[];
  answering_ids: string[];
  parsing_ids: string[];
  /** Results each (answering, parsing) pair will have: questions × replicates. */
  results_per_pair: number;
  /** Once recorded cost reaches this, no further job starts (the run ends budget_exceeded). */
  budget_usd?: number;
  /** What the run is made of, for reproducing it (manifest.ts); absent on runs from before it. */
  manifest?: RunManifest;
  /** Endpoints the run named for its events (src/webhooks), besides the tenant's all-runs ones. */
  webhook_endpoint_ids?: string[];
  /** An endpoint took result.created when the run was submitted: each new result goes to the outbox. */
  result_events?: boolean;
  /** A run too large for one coordinator (shards.ts): its jobs go to shards, `job_ids` is empty. */
  shards?: ShardPlan;
}

export interface RecordedResult {
  result_id: string;
  job_id: string;
  /** For the result's live event (GET /v1/runs/:id/events); absent from consumers older than it. */
  question_id?: string;
  answering_id: string;
  parsing_id: string;
  verdict: Verdict;
  /** Token and cost rows of this result (cost.ts); kept idempotently with the result. */
  usage?: UsageRow[];
  /** One observation per rubric trait (src/rubric/aggregate.ts), for the per-trait aggregates. */
  traits?: TraitObservation[];
  /** A scenario turn's successor, created and sent as this result is recorded (scenario-turns.ts). */
  next_turn?: NextTurn;
}

export type Claim =
  | {
      kind: "run";
      recorded: string[];
      attempts: number /** The answer an earlier attempt checkpointed here (JSON), if any. */;
      answer: string | null;
      /** A scenario turn's starting state (JSON), left by the previous turn (scenario-turns.ts). */
      scenario_state?: string | null;
    }
  | { kind: "busy"; retry_in_seconds: number }
  /** A budgeted sharded run's shard has no allowance to start it now (shard-allowance.ts): come back later, nothing failed. */
  | { kind: "wait"; retry_in_seconds: number }
  | { kind: "finished"; state: "done" | "dead" | "skipped" }
  | { kind: "unknown" };

/** What `markDead` did: the job is dead and the run holds these of it, or a delivery holds its lease. */
export type DeadMark = { kind: "dead"; recorded: string[]; usage_keys: string[] } | { kind: "busy"; retry_in_seconds: number };

export type { JobCounts };

export interface RunSnapshot {
  run_id: string;
  status: RunStatus;
  progress: { total: number; done: number };
  summary: (PairSummary & { usage: RunUsage & { unpriced_models: string[] }; traits: Record<string, TraitAggregate> })[];
  /** Every (answering, parsing) pair of the run, whether or not `summary` holds them all. */
  pairs_total: number;
  /** Null for runs submitted before manifests existed. */
  manifest: ReturnType<typeof withActualModels> | null;
  jobs: JobCounts;
  usage: RunUsage & { unpriced_models: string[] };
  budget_usd: number | null;
  finished_at: string | null;
}
