-- Tenants and their API keys (src/tenants/README.md). Every resource row carries tenant_id;
-- rows written before tenants existed belong to 'default', the tenant EDGEVAL_API_TOKEN maps to.
CREATE TABLE tenants (
  tenant_id           TEXT PRIMARY KEY,
  name                TEXT NOT NULL,
  -- May this tenant's models use the deployment's own provider secrets (OPENAI_API_KEY, …)?
  use_deployment_keys INTEGER NOT NULL,
  -- Quota overrides over the documented defaults (src/tenants/limits.ts), JSON.
  limits_json         TEXT NOT NULL DEFAULT '{}',
  -- Results older than this many days are deleted by the scheduled sweep; NULL keeps them.
  retention_days      INTEGER,
  disabled            INTEGER NOT NULL DEFAULT 0,
  created_at          TEXT NOT NULL,
  updated_at          TEXT NOT NULL
);
INSERT INTO tenants (tenant_id, name, use_deployment_keys, created_at, updated_at)
  VALUES ('default', 'default', 1, '1970-01-01T00:00:00.000Z', '1970-01-01T00:00:00.000Z');

-- One row per API key: only HMAC-SHA-256(pepper, key) is stored. A request reads its row by
-- key_id (the primary key), once, uncached, so revocation takes effect on the next request.
CREATE TABLE api_keys (
  key_id       TEXT PRIMARY KEY,          -- the 12 hex digits after "ev_"
  tenant_id    TEXT NOT NULL REFERENCES tenants (tenant_id),
  name         TEXT NOT NULL,
  scopes       TEXT NOT NULL,             -- JSON array of scopes
  key_hash     TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  expires_at   TEXT,
  revoked_at   TEXT,
  last_used_at TEXT,
  rotated_from TEXT                       -- the key_id this key was rotated from
);
CREATE INDEX api_keys_by_tenant ON api_keys (tenant_id, created_at DESC, key_id DESC);
