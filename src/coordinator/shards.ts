/**
 * Sharded aggregation for very large runs. A run of more than `COORDINATOR_SHARD_JOBS` jobs is not
 * funnelled through one Durable Object: its jobs are split into contiguous ranges, one coordinator
 * shard each (`<root>#<s>`), and the run's own coordinator (the root, named as every run's
 * coordinator is) keeps only what is run-wide. A job message names its shard; the shard answers
 * its jobs' claims, leases, answer checkpoints, records and releases, enqueues its jobs in chunks
 * from its alarm and re-sends its stalled ones; it reports new results and its job counts to the
 * root in batches (shard-report.ts), a few times a second at most. The root stores each result's
 * rows once (ids), so its status, summary, usage, events and webhooks are those of an unsharded run.
 * The run-wide stops travel the other way: a spent budget or a cancel is answered to every report
 * and pushed to every shard once; a budgeted run's budget is dealt out to the shards in slices
 * (shard-allowance.ts), so no shard starts a job the run's budget does not cover.
 */

import { coordinatorName, type RunRef } from "../storage/r2-keys";

/** The dimensions job ids are built from (src/submit/spec.ts jobIds): questions × answering models × replicates. */
export interface JobDims {
  questions: number;
  answering: number;
  replicates: number;
}

/** What a sharded run's root is started with (InitRun.shards). */
export interface ShardPlan {
  count: number;
  /** Jobs per shard (the last may have fewer). */
  per_shard: number;
  dims: JobDims;
}

/** What one shard is started with. */
export interface ShardInit {
  root: string;
  shard: number;
  run_id: string;
  tenant_id?: string;
  /** The run's budget: a shard checks its claims against the run's spend as it last heard it plus its own since. */
  budget_usd?: number;
  /** Its jobs: indices first … first + count - 1 of the run's job ids. */
  first: number;
  count: number;
  dims: JobDims;
}

export const shardName = (root: string, shard: number) => `${root}#${shard}`;

/** The coordinator a shard reports to (a root's own name is returned as is). */
export const rootNameOf = (name: string) => {
  const hash = name.lastIndexOf("#");
  return hash < 0 ? name : name.slice(0, hash);
};

/** Null when the run fits one coordinator. */
export function shardPlan(dims: JobDims, perShard: number): ShardPlan | null {
  const total = dims.questions * dims.answering * dims.replicates;
  if (total <= perShard) return null;
  return { count: Math.ceil(total / perShard), per_shard: perShard, dims };
}

/** The i-th job id in submit's order (question-major, then answering model, then replicate). */
export function jobIdAt(i: number, dims: JobDims): string {
  const perQuestion = dims.answering * dims.replicates;
  const q = Math.floor(i / perQuestion);
  const a = Math.floor((i % perQuestion) / dims.replicates);
  const r = (i % dims.replicates) + 1;
  return `${q}.${a}.${r}`;
}

/** The inverse of jobIdAt: a job id's index in submit's order (null for an id not of this shape, a scenario turn's). */
export function jobIndexOf(jobId: string, dims: JobDims): number | null {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(jobId);
  if (!m) return null;
  return Number(m[1]) * dims.answering * dims.replicates + Number(m[2]) * dims.replicates + Number(m[3]) - 1;
}

/** Shard s's init: its range of the run's jobs. */
export function shardInit(
  root: string,
  run: { run_id: string; tenant_id?: string; budget_usd?: number },
  plan: ShardPlan,
  s: number,
): ShardInit {
  const total = plan.dims.questions * plan.dims.answering * plan.dims.replicates;
  const first = s * plan.per_shard;
  return {
    root,
    shard: s,
    run_id: run.run_id,
    ...(run.tenant_id ? { tenant_id: run.tenant_id } : {}),
    ...(run.budget_usd !== undefined ? { budget_usd: run.budget_usd } : {}),
    first,
    count: Math.min(plan.per_shard, total - first),
    dims: plan.dims,
  };
}

/** The coordinator a job message goes to: its run's, or its shard's. */
export const coordinatorOfJob = (msg: RunRef & { shard?: number }) =>
  msg.shard === undefined ? coordinatorName(msg) : shardName(coordinatorName(msg), msg.shard);
