-- Signed completion webhooks (src/webhooks/README.md). Every table carries tenant_id from the start.
-- Signing secrets are sealed like tenant secrets (AES-256-GCM, AAD "tenant_id|webhook:<endpoint_id>"):
-- they must sign, so they are encrypted, not hashed. prev_* holds the secret being rotated out,
-- still signed with until prev_expires_at.
CREATE TABLE webhook_endpoints (
  tenant_id          TEXT NOT NULL,
  endpoint_id        TEXT NOT NULL,
  url                TEXT NOT NULL,
  description        TEXT NOT NULL DEFAULT '',
  event_types_json   TEXT NOT NULL,       -- JSON array of event types this endpoint receives
  all_runs           INTEGER NOT NULL,    -- 1: every run of the tenant; 0: only runs naming it
  enabled            INTEGER NOT NULL,
  disabled_reason    TEXT,
  ciphertext         TEXT NOT NULL,
  iv                 TEXT NOT NULL,
  kek_version        INTEGER NOT NULL,
  prev_ciphertext    TEXT,
  prev_iv            TEXT,
  prev_kek_version   INTEGER,
  prev_expires_at    TEXT,
  created_at         TEXT NOT NULL,
  updated_at         TEXT NOT NULL,
  PRIMARY KEY (tenant_id, endpoint_id)
);

-- One row per event (webhook-id), its body fixed at emission so every attempt sends the same bytes.
CREATE TABLE webhook_events (
  tenant_id   TEXT NOT NULL,
  event_id    TEXT NOT NULL,
  run_id      TEXT NOT NULL,
  type        TEXT NOT NULL,
  payload     TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (tenant_id, event_id)
);

-- One row per (event, endpoint): the delivery and where its retry schedule stands.
CREATE TABLE webhook_deliveries (
  tenant_id        TEXT NOT NULL,
  delivery_id      TEXT NOT NULL,
  event_id         TEXT NOT NULL,
  endpoint_id      TEXT NOT NULL,
  status           TEXT NOT NULL,         -- pending | delivered | failed
  attempts         INTEGER NOT NULL DEFAULT 0,
  schedule_step    INTEGER NOT NULL DEFAULT 0,  -- attempts in the current schedule (a manual retry restarts it)
  next_attempt_at  TEXT,
  last_status_code INTEGER,
  last_error       TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  PRIMARY KEY (tenant_id, delivery_id),
  UNIQUE (tenant_id, event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (tenant_id, endpoint_id, created_at);

-- Every attempt: when, the webhook-timestamp it was signed with, what the receiver answered.
CREATE TABLE webhook_attempts (
  tenant_id          TEXT NOT NULL,
  delivery_id        TEXT NOT NULL,
  attempt            INTEGER NOT NULL,
  at                 TEXT NOT NULL,
  webhook_timestamp  INTEGER NOT NULL,
  status_code        INTEGER,
  error              TEXT,
  PRIMARY KEY (tenant_id, delivery_id, attempt)
);
