-- A trigger's signing secret can be rotated (POST /v1/triggers/:id/rotate-secret, src/triggers/README.md):
-- the replaced secret still verifies deliveries until prev_expires_at, so a sender (a GitHub hook, a CI
-- job) can be moved to the new one without a window where its deliveries are refused. Sealed like the
-- current secret (AES-256-GCM, AAD "tenant_id|trigger:<id>"), as webhook_endpoints keeps its previous one.
ALTER TABLE triggers ADD COLUMN prev_ciphertext TEXT;
ALTER TABLE triggers ADD COLUMN prev_iv TEXT;
ALTER TABLE triggers ADD COLUMN prev_kek_version INTEGER;
ALTER TABLE triggers ADD COLUMN prev_expires_at TEXT;
