import { env, exports } from "cloudflare:workers";
import { expect, it } from "vitest";
it("serves /health and has D1 migrated", async () => {
  const res = await exports.default.fetch("http://edgeval.local/health");
  expect(res.status).toBe(200);
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM runs").first<{ n: number }>();
  expect(row?.n).toBe(0);
});
