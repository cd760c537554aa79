-- Inbound triggers (src/triggers/README.md): a signed POST /v1/hooks/:trigger_id starts a run.
-- trigger_id is unique across tenants (the hook URL names no tenant); the row says whose it is.
-- The signing secret is sealed like webhook secrets (AES-256-GCM, AAD "tenant_id|trigger:<id>").
-- De-duplication by delivery id uses idempotency_keys (key "hook:<trigger_id>:<delivery id>"),
-- which nothing deletes but the run's own deletion, so it outlasts the required 24 hours.
CREATE TABLE triggers (
  trigger_id    TEXT PRIMARY KEY,
  tenant_id     TEXT NOT NULL,
  name          TEXT NOT NULL,
  spec_json     TEXT NOT NULL,       -- {benchmark_id, config, webhook_endpoint_ids, mapping}
  signing_json  TEXT NOT NULL,       -- {scheme, header?, delivery_id_header?}
  ciphertext    TEXT NOT NULL,
  iv            TEXT NOT NULL,
  kek_version   INTEGER NOT NULL,
  created_at    TEXT NOT NULL
);
CREATE INDEX triggers_by_tenant ON triggers (tenant_id, created_at);
