/** Two stored runs compared from their D1 rows (edge): run A's rows are held by key, run B's streamed past them. */
import { pageResultRows } from "../storage/results-repo";
import { RunComparer, type VerdictRow } from "./compare-runs";

const PAGE = 2000;
const COLUMNS = "result_id, question_id, answering_model, parsing_model, replicate, verdict";

async function eachRow(db: D1Database, run: { tenant_id: string; run_id: string }, f: (r: VerdictRow) => void): Promise<void> {
  let after: string | null = null;
  for (;;) {
    const rows: (VerdictRow & { result_id: string })[] = await pageResultRows(db, COLUMNS, run, { limit: PAGE, after });
    for (const r of rows) f(r);
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1]!.result_id;
  }
}

export async function compareStoredRuns(
  db: D1Database,
  a: { tenant_id: string; run_id: string },
  b: { tenant_id: string; run_id: string },
  models?: { a: string; b: string },
  judges?: { a: string; b: string },
): Promise<RunComparer> {
  const comparer = new RunComparer(models, judges);
  await eachRow(db, a, (r) => comparer.addA(r));
  await eachRow(db, b, (r) => comparer.addB(r));
  return comparer;
}
