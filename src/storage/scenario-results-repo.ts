/**
 * D1 access to `scenario_results` (migrations/0017_scenarios.sql): one row per ended scenario
 * chain (scenario × answering × parsing × replicate), Karenina's ScenarioResultRecord as JSON,
 * read by the Karenina export's `scenario_results`. Upserted on (tenant, run, chain), so the
 * chain's last turn, redelivered, rewrites its row.
 */
import type { ScenarioResultRecord } from "../scenarios/engine";

export interface ScenarioResultRow {
  tenant_id: string;
  run_id: string;
  /** The chain's turn-job id without its turn (`s<s>.a.p.r`). */
  chain_id: string;
  answering_model: string;
  parsing_model: string;
  record: ScenarioResultRecord;
  created_at: string;
}

export function upsertScenarioResult(db: D1Database, row: ScenarioResultRow): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO scenario_results (tenant_id, run_id, chain_id, scenario_id, answering_model, parsing_model, replicate, status, record_json, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(tenant_id, run_id, chain_id) DO UPDATE SET status = excluded.status, record_json = excluded.record_json`,
    )
    .bind(
      row.tenant_id,
      row.run_id,
      row.chain_id,
      row.record.scenario_id,
      row.answering_model,
      row.parsing_model,
      row.record.replicate ?? 1,
      row.record.status,
      JSON.stringify(row.record),
      row.created_at,
    );
}

/** A run's ended scenarios in chain order (their records' JSON), a page after `afterChainId`. */
export async function listScenarioResults(
  db: D1Database,
  run: { tenant_id: string; run_id: string },
  page: { limit: number; after: string | null },
): Promise<{ chain_id: string; record_json: string }[]> {
  const after = page.after === null ? "" : " AND chain_id > ?";
  const { results } = await db
    .prepare(`SELECT chain_id, record_json FROM scenario_results WHERE tenant_id = ? AND run_id = ?${after} ORDER BY chain_id LIMIT ?`)
    .bind(run.tenant_id, run.run_id, ...(page.after === null ? [] : [page.after]), page.limit)
    .all<{ chain_id: string; record_json: string }>();
  return results;
}

/** How many of a run's results are scenario turns (`results.scenario_id` set; index results_by_scenario). */
export async function countScenarioTurnResults(db: D1Database, run: { tenant_id: string; run_id: string }): Promise<number> {
  const row = await db
    .prepare("SELECT COUNT(*) AS n FROM results WHERE tenant_id = ? AND run_id = ? AND scenario_id IS NOT NULL")
    .bind(run.tenant_id, run.run_id)
    .first<{ n: number }>();
  return row?.n ?? 0;
}
