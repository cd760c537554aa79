-- Exports built into R2 by the export queue (src/exports/README.md): one row per
-- POST /v1/runs/:id/exports, with the builder's progress so each queue invocation (≤ 500 results)
-- continues where the last one stopped. `step` is the compare-and-set guard: a redelivered or
-- duplicated message whose step is not the row's does nothing.
CREATE TABLE exports (
  tenant_id       TEXT NOT NULL,
  export_id       TEXT NOT NULL,
  run_id          TEXT NOT NULL,
  format          TEXT NOT NULL,          -- karenina | csv | ndjson
  filter_json     TEXT NOT NULL,          -- the result filter (src/storage/results-repo.ts ResultFilter)
  status          TEXT NOT NULL,          -- building | ready | failed
  r2_key          TEXT NOT NULL,          -- the finished object
  upload_id       TEXT,                   -- the R2 multipart upload while building
  parts_json      TEXT NOT NULL DEFAULT '[]',  -- [{partNumber, etag}] uploaded so far
  segments_json   TEXT NOT NULL DEFAULT '[]',  -- [{step, size}]: bytes earlier steps left for a later part
  step            INTEGER NOT NULL DEFAULT 0,
  after_result_id TEXT,                   -- the last result written
  results_done    INTEGER NOT NULL DEFAULT 0,
  results_total   INTEGER NOT NULL,
  bytes           INTEGER NOT NULL DEFAULT 0,
  layout_json     TEXT,                   -- the CSV columns, fixed at the first step
  error           TEXT,
  created_at      TEXT NOT NULL,
  finished_at     TEXT,
  PRIMARY KEY (tenant_id, export_id)
);
CREATE INDEX exports_by_run ON exports (tenant_id, run_id, created_at DESC);
