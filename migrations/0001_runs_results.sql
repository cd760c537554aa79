-- Runs: one row per submitted run. The RunCoordinator Durable Object is the live source of
-- progress; this row is what listings read and what the coordinator updates when a run ends.
CREATE TABLE runs (
  run_id        TEXT PRIMARY KEY,
  run_name      TEXT,
  benchmark_name TEXT NOT NULL,
  status        TEXT NOT NULL,
  total_results INTEGER NOT NULL,
  total_jobs    INTEGER NOT NULL,
  spec_key      TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  finished_at   TEXT
);
CREATE INDEX runs_by_created ON runs (created_at DESC, run_id DESC);

-- Idempotency-Key → run. body_hash detects the same key reused with another body (409).
CREATE TABLE idempotency_keys (
  key        TEXT PRIMARY KEY,
  body_hash  TEXT NOT NULL,
  run_id     TEXT NOT NULL,
  created_at TEXT NOT NULL
);

-- Results: one row per (question, answering model, parsing model, replicate) in a run.
-- result_id is derived from exactly those (no timestamp), so a redelivered job overwrites.
CREATE TABLE results (
  result_id         TEXT PRIMARY KEY,
  run_id            TEXT NOT NULL,
  question_id       TEXT NOT NULL,
  answering_model   TEXT NOT NULL,
  parsing_model     TEXT NOT NULL,
  replicate         INTEGER NOT NULL,
  verdict           TEXT NOT NULL,       -- pass | fail | error | no_verdict (rubric_only)
  verify_result     INTEGER,             -- 1 / 0 / NULL
  failure_category  TEXT,
  r2_key            TEXT NOT NULL,
  compact_json      TEXT NOT NULL,
  created_at        TEXT NOT NULL
);
CREATE INDEX results_by_run ON results (run_id, result_id);
CREATE UNIQUE INDEX results_natural_key
  ON results (run_id, question_id, answering_model, parsing_model, replicate);
