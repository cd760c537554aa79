/**
 * The run coordinator's own SQLite tables (one Durable Object per run): job states, the results
 * and usage rows recorded once each, per-trait rows for the aggregates, answer checkpoints, and the
 * outbox of results whose `result.created` webhook event is not handed over yet (src/webhooks/result-events.ts),
 * and when the queue last accepted each job's message (stall-watch.ts); for a sharded run
 * (shards.ts) a shard's results not yet taken by its root and those its root refused, and, in the root, each shard's
 * job counts (shard-report.ts) and budget allowance (shard-allowance.ts).
 * Created on every start of the object; IF NOT EXISTS makes that a no-op after the first.
 */
export const COORDINATOR_TABLES = `
  CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS jobs (
    job_id TEXT PRIMARY KEY, state TEXT NOT NULL, attempts INTEGER NOT NULL, updated_at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS results (
    result_id TEXT PRIMARY KEY, job_id TEXT NOT NULL, answering_id TEXT NOT NULL,
    parsing_id TEXT NOT NULL, verdict TEXT NOT NULL, question_id TEXT);
  CREATE TABLE IF NOT EXISTS usage_rows (
    key TEXT PRIMARY KEY, job_id TEXT NOT NULL, answering_id TEXT NOT NULL, parsing_id TEXT NOT NULL,
    stage TEXT NOT NULL, model TEXT NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
    cost_usd REAL);
  CREATE TABLE IF NOT EXISTS answers (job_id TEXT PRIMARY KEY, answer TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS trait_rows (
    result_id TEXT NOT NULL, trait TEXT NOT NULL, answering_id TEXT NOT NULL, parsing_id TEXT NOT NULL,
    score REAL, pass INTEGER, errored INTEGER NOT NULL, PRIMARY KEY (result_id, trait));
  CREATE TABLE IF NOT EXISTS result_events (result_id TEXT PRIMARY KEY);
  CREATE TABLE IF NOT EXISTS job_sends (job_id TEXT PRIMARY KEY, accepted_at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS to_root (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS shard_jobs (
    shard INTEGER PRIMARY KEY, done INTEGER NOT NULL, dead INTEGER NOT NULL, skipped INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS shard_budget (shard INTEGER PRIMARY KEY, granted REAL NOT NULL, spent REAL NOT NULL);
  CREATE TABLE IF NOT EXISTS refused_results (
    result_id TEXT PRIMARY KEY, job_id TEXT NOT NULL, reason TEXT NOT NULL, detail TEXT NOT NULL, at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS scenario_states (job_id TEXT PRIMARY KEY, state TEXT NOT NULL);
`;

/**
 * Columns added after objects were first created (CREATE TABLE IF NOT EXISTS leaves an existing
 * table as it was): added to an older object's table on its next start.
 */
export function migrateCoordinatorTables(sql: SqlStorage): void {
  try {
    sql.exec("SELECT question_id FROM results LIMIT 0");
  } catch {
    sql.exec("ALTER TABLE results ADD COLUMN question_id TEXT");
  }
}
