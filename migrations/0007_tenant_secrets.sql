-- Provider keys per tenant (src/tenants/README.md): AES-256-GCM ciphertext only, with its IV and
-- the KEK version it was sealed with; AAD = "tenant_id|name", so a row copied elsewhere fails to
-- decrypt. The key is bound to `interface` and sent only to that provider's origin or `origins`.
CREATE TABLE tenant_secrets (
  tenant_id    TEXT NOT NULL,
  name         TEXT NOT NULL,
  interface    TEXT NOT NULL,
  origins_json TEXT NOT NULL DEFAULT '[]',
  limits_json  TEXT,                 -- {rpm?, tpm?, concurrency?} for the shared ProviderLimiter of this key
  ciphertext   TEXT NOT NULL,
  iv           TEXT NOT NULL,
  kek_version  INTEGER NOT NULL,
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL,
  PRIMARY KEY (tenant_id, name)
);
