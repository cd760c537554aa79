/**
 * A job's result, saved and recorded: its D1 row with the tenant ledger rows of its usage (a large
 * result in R2 first), then the run's coordinator. A redelivery that finds the row re-records it,
 * and the ledger ignores rows it has, so a result is counted once however often it is saved.
 */
import { traitObservations } from "../rubric/aggregate";
import { computeResultId } from "../pipeline/ids";
import type { ModelConfig } from "../schemas/model-config";
import { type LedgerRow, ledgerInsertStatements, ledgerRows } from "../tenants/usage";
import { DEFAULT_TENANT } from "../tenants/tenants-repo";
import type { VerificationResult } from "../schemas/result";
import type { RecordedResult } from "../coordinator/rpc-types";
import type { JobRef } from "../submit/spec";
import type { RunSpec } from "../storage/run-spec";
import { saveResult } from "../storage/result-store";
import { type ResultRowRecord, resultUpsertStatements } from "../storage/results-repo";
import { usageRows } from "../coordinator/cost";
import { priceTable } from "../llm/prices";
import { faultJob, faultPoint } from "../lib/fault-points";
import type { JobContext } from "./job-runner";

/** A result's D1 row and the tenant ledger rows of its usage, written together. */
export interface ResultWrite {
  row: ResultRowRecord;
  ledger: LedgerRow[];
}

/** One D1 batch (one transaction) for results and their ledger rows: one round trip for all of them. */
export async function writeResults(db: D1Database, items: readonly ResultWrite[]): Promise<void> {
  const ledger = items.flatMap((i) => i.ledger);
  const statements = resultUpsertStatements(
    db,
    items.map((i) => i.row),
  );
  if (ledger.length > 0) statements.push(...ledgerInsertStatements(db, ledger));
  if (statements.length > 0) await db.batch(statements);
}

/** The id of the job's result by one parsing model (src/pipeline/ids.ts). */
export function jobResultId(spec: RunSpec, job: JobRef, parsing: ModelConfig): Promise<string> {
  return computeResultId({
    run_id: spec.run_id,
    question_id: job.question.id,
    answering: job.answering,
    parsing,
    replicate: job.replicate,
  });
}

/**
 * `billed`: the result whose usage this job spent, when it is not `result` itself: a re-scored
 * run's copied result spent nothing (null), one with added traits spent only the traits' calls.
 */
export async function saveAndRecord(
  ctx: JobContext,
  parsing: ModelConfig,
  result: VerificationResult,
  completesJob = false,
  billed: VerificationResult | null = result,
  /** A scenario turn's successor: the coordinator creates and sends it as it records this result. */
  nextTurn?: RecordedResult["next_turn"],
): Promise<void> {
  const { spec, job, deps, coordinator } = ctx;
  // Priced now, with the run's own table, so the coordinator's totals and budget need no prices.
  const usage = billed ? usageRows(billed, job, parsing, priceTable(spec.prices)) : [];
  const stages = (billed?.template?.usage_metadata ?? {}) as Record<string, { cached?: boolean }>;
  const cached = new Set(usage.filter((u) => stages[u.stage]?.cached === true).map((u) => u.key));
  // With the row, before the coordinator records it: a redelivery re-records, and the ledger ignores rows it has.
  const ledger = ledgerRows(spec.tenant_id ?? DEFAULT_TENANT, spec.run_id, usage, cached, deps.clock.now());
  const write = deps.writeResultRow ?? ((item: ResultWrite) => writeResults(deps.db, [item]));
  const verdict = await saveResult(deps.blobs, (row) => write({ row, ledger }), spec, job, parsing, result, deps.clock);
  faultPoint("before_record", { run_id: spec.run_id, job: faultJob(job), parsing: parsing.id });
  await coordinator.record(
    {
      result_id: result.metadata.result_id,
      job_id: job.job_id,
      question_id: job.question.id,
      answering_id: job.answering.id,
      parsing_id: parsing.id,
      verdict,
      usage,
      traits: traitObservations(result),
      ...(nextTurn ? { next_turn: nextTurn } : {}),
    },
    { completesJob },
  );
}
