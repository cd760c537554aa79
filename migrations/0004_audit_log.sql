-- Per-tenant audit log (src/tenants/audit.ts): who did what to which resource. Readable by the
-- tenant with a keys:admin key (GET /v1/audit), newest first.
CREATE TABLE audit_log (
  tenant_id   TEXT NOT NULL,
  audit_id    TEXT NOT NULL,
  at          TEXT NOT NULL,
  actor       TEXT NOT NULL,     -- key:<key_id>, deployment_token, or operator
  action      TEXT NOT NULL,     -- e.g. key.created, run.submitted, secret.deleted
  target      TEXT NOT NULL,     -- the resource's id
  detail_json TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (tenant_id, at, audit_id)
);
