-- Scheduled runs (src/schedules/README.md): a cron expression in UTC, a stored benchmark and a
-- stored preset (migrations/0012_presets.sql) with overrides, or a whole VerificationConfig, per tenant.
CREATE TABLE schedules (
  tenant_id     TEXT NOT NULL,
  schedule_id   TEXT NOT NULL,
  name          TEXT NOT NULL,
  cron          TEXT NOT NULL,
  benchmark_id  TEXT NOT NULL,
  preset_id     TEXT,                   -- a preset of the tenant, read at every run; NULL: config_json is the whole config
  config_json   TEXT NOT NULL,          -- overrides of the preset's top-level keys, or the whole VerificationConfig
  enabled       INTEGER NOT NULL,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL,
  PRIMARY KEY (tenant_id, schedule_id)
);
CREATE INDEX schedules_enabled ON schedules (enabled);

-- One row per minute a schedule fired. The primary key is what allows at most one run per
-- schedule per minute: the cron handler inserts the row first and starts a run only if it did.
-- compared_at / regression: the comparison with the schedule's previous run, once this one ended.
CREATE TABLE schedule_runs (
  tenant_id     TEXT NOT NULL,
  schedule_id   TEXT NOT NULL,
  minute        TEXT NOT NULL,          -- YYYY-MM-DDTHH:MM, UTC
  run_id        TEXT,                   -- NULL when the run could not be started (error says why)
  error         TEXT,
  compared_with TEXT,                   -- the previous run's id
  compared_at   TEXT,
  regression    INTEGER,                -- 1 when a model pair dropped with p < alpha
  comparison_json TEXT,                 -- the model pairs of the comparison
  created_at    TEXT NOT NULL,
  PRIMARY KEY (tenant_id, schedule_id, minute)
);
CREATE INDEX schedule_runs_pending ON schedule_runs (compared_at, tenant_id);
