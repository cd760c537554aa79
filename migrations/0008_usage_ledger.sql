-- Spend per tenant (src/tenants/usage.ts): one row per model stage a result used, keyed like the
-- coordinator's usage rows (an answer shared by several judges is one row), so a redelivered
-- result is never counted twice. Monthly totals (GET /v1/usage, the monthly spend quota) are sums.
CREATE TABLE usage_ledger (
  tenant_id     TEXT NOT NULL,
  run_id        TEXT NOT NULL,
  row_key       TEXT NOT NULL,
  month         TEXT NOT NULL,        -- UTC calendar month, YYYY-MM
  model         TEXT NOT NULL,        -- interface:model_name
  input_tokens  INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cost_usd      REAL,                 -- NULL when the model has no price
  cached        INTEGER NOT NULL,     -- served from the response cache: no call, no cost
  PRIMARY KEY (tenant_id, run_id, row_key)
);
CREATE INDEX usage_by_tenant_month ON usage_ledger (tenant_id, month, model);
