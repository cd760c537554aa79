-- GET /v1/judges, /v1/presets, /v1/triggers and /v1/schedules page newest first by
-- (created_at, id) after the cursor's row: these indexes let a page read its own rows instead of
-- scanning and sorting all of the tenant's on every request. triggers_by_tenant lacked the id.
CREATE INDEX stored_judges_by_tenant_created ON stored_judges (tenant_id, created_at DESC, judge_id DESC);
CREATE INDEX presets_by_tenant_created ON presets (tenant_id, created_at DESC, preset_id DESC);
DROP INDEX triggers_by_tenant;
CREATE INDEX triggers_by_tenant_created ON triggers (tenant_id, created_at DESC, trigger_id DESC);
CREATE INDEX schedules_by_tenant_created ON schedules (tenant_id, created_at DESC, schedule_id DESC);
