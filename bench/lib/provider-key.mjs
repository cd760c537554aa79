// A provider key with its own limits for the benches: a tenant (so each API request reads its key
// from D1, as a tenant's requests do) holding one secret whose `limits` are set (PUT /v1/secrets/:name).
// Without it a model's key has its interface's defaults (src/limiter/limiter-state.ts; openai_compatible:
// 6,000 requests a minute, 64 at once), which bound what a bench measures.
import { localAdminToken } from "../../scripts/lib/env-files.mjs";

/** `concurrency=256,rpm=100000` → {concurrency: 256, rpm: 100000} (a tenant secret's `limits`). */
export function parseKeyLimits(text = "") {
  const out = {};
  for (const part of text.split(",")) {
    const [name, v] = part.split("=");
    if (!["concurrency", "rpm", "tpm"].includes(name) || !(Number(v) > 0)) {
      throw new Error(`--key-limits takes concurrency=N,rpm=N,tpm=N (each optional, > 0); got ${JSON.stringify(part)}`);
    }
    out[name] = Number(v);
  }
  return out;
}

/**
 * A tenant with one provider key whose limits are `limits`, for the models to use through
 * api_key_secret. Returns the tenant's API token and the secret's name.
 */
export async function keyWithLimits(stack, fakeUrl, limits, tenantName = "bench") {
  const call = async (token, method, path, body) => {
    const res = await fetch(`${stack.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  const { key } = await call(localAdminToken(), "POST", "/v1/admin/tenants", {
    name: tenantName,
    limits: { requests_per_minute: 1_000_000 },
    first_key: { name: "bench" },
  });
  const name = "BENCH_PROVIDER_KEY";
  await call(key.key, "PUT", `/v1/secrets/${name}`, {
    value: "bench-provider-key",
    interface: "openai_compatible",
    origins: [new URL(fakeUrl).origin],
    limits,
  });
  return { token: key.key, secretName: name };
}
