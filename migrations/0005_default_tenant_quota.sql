-- The default tenant is the deployment's own (EDGEVAL_API_TOKEN, rows from before tenants):
-- quotas that leave existing deployments, npm start, the benches and the tests unchanged.
-- The operator lowers them like any tenant's (PATCH /v1/admin/tenants/default).
UPDATE tenants SET limits_json = '{"requests_per_minute":60000,"concurrent_runs":10000}'
  WHERE tenant_id = 'default' AND limits_json = '{}';
