-- Isolation (src/tenants/README.md): every resource row names its tenant; rows written before
-- tenants existed belong to 'default'. Reads use the R2 key or coordinator name on the row, so
-- older objects and coordinators keep their keys and names.
ALTER TABLE runs ADD COLUMN tenant_id TEXT NOT NULL DEFAULT 'default';
-- The RunCoordinator's name: `<tenant>:<run_id>` for new runs; NULL on older rows, whose
-- coordinator is named by run_id alone.
ALTER TABLE runs ADD COLUMN coordinator_name TEXT;
CREATE INDEX runs_by_tenant_created ON runs (tenant_id, created_at DESC, run_id DESC);
DROP INDEX runs_by_created;
-- The concurrent-runs quota counts a tenant's queued and running runs.
CREATE INDEX runs_by_tenant_status ON runs (tenant_id, status);

ALTER TABLE benchmarks ADD COLUMN tenant_id TEXT NOT NULL DEFAULT 'default';
CREATE INDEX benchmarks_by_tenant_created ON benchmarks (tenant_id, created_at DESC, benchmark_id DESC);
DROP INDEX benchmarks_by_created;

ALTER TABLE results ADD COLUMN tenant_id TEXT NOT NULL DEFAULT 'default';

-- Idempotency-Key is per tenant: two tenants may use the same key for different runs.
CREATE TABLE idempotency_keys_t (
  tenant_id  TEXT NOT NULL,
  key        TEXT NOT NULL,
  body_hash  TEXT NOT NULL,
  run_id     TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, key)
);
INSERT INTO idempotency_keys_t (tenant_id, key, body_hash, run_id, created_at)
  SELECT 'default', key, body_hash, run_id, created_at FROM idempotency_keys;
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_t RENAME TO idempotency_keys;
