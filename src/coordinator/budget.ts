/**
 * The run's budget: once recorded cost reaches it, no further job starts (claims and pending jobs
 * are skipped; jobs running finish) and the run ends budget_exceeded. Cost is priced by the job
 * runner with the run's own price table, so the coordinator only adds numbers.
 */
export const budgetSpent = (budgetUsd: number | undefined, spentUsd: number): boolean => budgetUsd !== undefined && spentUsd >= budgetUsd;
