-- Verification-config presets (src/presets/README.md): a Karenina preset's config under an id,
-- named by runs and triggers (`preset_id`, with `config` as overrides).
CREATE TABLE presets (
  tenant_id    TEXT NOT NULL,
  preset_id    TEXT NOT NULL,
  name         TEXT NOT NULL,
  description  TEXT,
  config_json  TEXT NOT NULL,   -- the config as sent (validated at store time)
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL,
  PRIMARY KEY (tenant_id, preset_id)
);
