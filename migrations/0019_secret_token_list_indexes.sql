-- GET /v1/secrets and GET /v1/judges/:id/tokens page newest first by (created_at, id) after the
-- cursor's row, as the lists of 0018 do (GET /v1/keys has its index since 0003: api_keys_by_tenant).
-- judge_tokens_by_judge lacked the id and the order; the new index serves its lookups too.
CREATE INDEX tenant_secrets_by_tenant_created ON tenant_secrets (tenant_id, created_at DESC, name DESC);
DROP INDEX judge_tokens_by_judge;
CREATE INDEX judge_tokens_by_judge_created ON judge_tokens (tenant_id, judge_id, created_at DESC, token_id DESC);
