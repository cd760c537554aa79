-- Multi-turn scenarios (src/scenarios/README.md). A scenario turn's result carries Karenina's
-- scenario_id / scenario_node / scenario_turn (from 0) / scenario_path (JSON list of node ids);
-- NULL for every other result. The index lists a run's turns of one scenario.
ALTER TABLE results ADD COLUMN scenario_id TEXT;
ALTER TABLE results ADD COLUMN scenario_node TEXT;
ALTER TABLE results ADD COLUMN scenario_turn INTEGER;
ALTER TABLE results ADD COLUMN scenario_path TEXT;
CREATE INDEX results_by_scenario ON results (tenant_id, run_id, scenario_id, scenario_turn);
-- A scenario may visit one node (one question) on several turns: the natural key gains the
-- scenario and the turn (COALESCEd, since NULLs never collide in a UNIQUE index).
DROP INDEX results_natural_key;
CREATE UNIQUE INDEX results_natural_key
  ON results (run_id, question_id, answering_model, parsing_model, replicate, COALESCE(scenario_id, ''), COALESCE(scenario_turn, -1));

-- One row per ended scenario chain (scenario × answering × parsing × replicate): Karenina's
-- ScenarioResultRecord (status, path, turn_count, history, outcome_results, terminal_failure,
-- replicate) as JSON, for the Karenina export's `scenario_results`. Written by the chain's last
-- turn before it is recorded; an upsert, so a redelivered last turn rewrites the same row.
CREATE TABLE scenario_results (
  tenant_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  chain_id TEXT NOT NULL,
  scenario_id TEXT NOT NULL,
  answering_model TEXT NOT NULL,
  parsing_model TEXT NOT NULL,
  replicate INTEGER NOT NULL,
  status TEXT NOT NULL,
  record_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, run_id, chain_id)
);
