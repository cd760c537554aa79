-- Re-scored runs (src/rescore/README.md): a child run names the run whose answers and results it
-- reuses. NULL for every other run. The index lists a run's children (GET /v1/runs/:id lineage).
ALTER TABLE runs ADD COLUMN parent_run_id TEXT;
CREATE INDEX runs_by_parent ON runs (tenant_id, parent_run_id);
