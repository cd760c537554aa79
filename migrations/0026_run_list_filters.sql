-- GET /v1/runs?status=…&benchmark_name=…: a tenant's runs of some statuses, or of one benchmark,
-- newest first, a page at a time without reading the tenant's other runs.
CREATE INDEX runs_by_tenant_status_created ON runs (tenant_id, status, created_at DESC, run_id DESC);
CREATE INDEX runs_by_tenant_benchmark_created ON runs (tenant_id, benchmark_name, created_at DESC, run_id DESC);
-- Superseded by the first: the same leading columns.
DROP INDEX runs_by_tenant_status;
