-- A judge token may expire (POST /v1/judges/:id/tokens {expires_at}, src/stored-judges/README.md): a
-- token pasted into a promptfooconfig.yaml then stops grading by itself. NULL: it never expires.
ALTER TABLE judge_tokens ADD COLUMN expires_at TEXT;
