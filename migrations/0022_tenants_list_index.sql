-- GET /v1/admin/tenants pages every tenant newest first by (created_at, tenant_id) after the
-- cursor's row, as the tenant-scoped lists of 0018 and 0019 do: this index lets a page read its own
-- rows instead of scanning and sorting the whole table.
CREATE INDEX tenants_by_created ON tenants (created_at DESC, tenant_id DESC);
