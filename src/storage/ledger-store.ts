/**
 * A job's retry ledger in R2 (retries used per transient class), saved when the job goes back to
 * the queue so the next delivery continues the same budgets. Parsed on read: a class that is
 * missing or not a whole number ≥ 0 counts as 0, and an object that is not a ledger as none.
 */
import { z } from "zod";
import { emptyLedger, RETRY_CLASSES, type RetryLedger } from "../llm/retrying";
import { r2Keys, type RunRef } from "./r2-keys";

const Count = z.number().int().min(0).catch(0);
const SavedLedger = z.object(Object.fromEntries(RETRY_CLASSES.map((c) => [c, Count])) as Record<keyof RetryLedger, typeof Count>);

/** The retries a job has used on earlier deliveries (none on its first: nothing can be saved yet). */
export async function loadLedger(blobs: R2Bucket, run: RunRef, jobId: string, attempts: number): Promise<RetryLedger> {
  if (attempts <= 1) return emptyLedger();
  const obj = await blobs.get(r2Keys.retryLedger(run, jobId));
  if (!obj) return emptyLedger();
  const parsed = SavedLedger.safeParse(await obj.json());
  return parsed.success ? parsed.data : emptyLedger();
}

export async function saveLedger(blobs: R2Bucket, run: RunRef, jobId: string, ledger: RetryLedger): Promise<void> {
  await blobs.put(r2Keys.retryLedger(run, jobId), JSON.stringify(ledger));
}
