-- Stored judges (src/stored-judges/README.md): a compound-judge config under an id, graded by
-- promptfoo's webhook assertion through POST /v1/judges/:id/promptfoo?token=jt_…
CREATE TABLE stored_judges (
  tenant_id     TEXT NOT NULL,
  judge_id      TEXT NOT NULL,
  name          TEXT NOT NULL,
  description   TEXT,
  spec_json     TEXT NOT NULL,   -- {config, mapping, deadline_ms, prices?}, validated at store time
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL,
  PRIMARY KEY (tenant_id, judge_id)
);

-- One row per promptfoo token: only HMAC-SHA-256(EDGEVAL_KEY_PEPPER, token) is stored, as for API
-- keys. A token is read by token_id (the 12 hex digits after "jt_"), once per call, uncached, so a
-- revocation takes effect on the next call; it grades with its own judge only.
CREATE TABLE judge_tokens (
  token_id      TEXT PRIMARY KEY,
  tenant_id     TEXT NOT NULL,
  judge_id      TEXT NOT NULL,
  name          TEXT NOT NULL,
  token_hash    TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  revoked_at    TEXT,
  last_used_at  TEXT
);
CREATE INDEX judge_tokens_by_judge ON judge_tokens (tenant_id, judge_id, created_at);
