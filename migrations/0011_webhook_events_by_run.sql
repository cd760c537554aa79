-- Deleting a run (DELETE /v1/runs/:id, the retention sweep) deletes its webhook events, their
-- deliveries and attempts (src/storage/runs-repo.ts deleteRunRows): find them by run.
CREATE INDEX IF NOT EXISTS webhook_events_by_run ON webhook_events (tenant_id, run_id);
