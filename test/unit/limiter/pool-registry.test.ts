import { describe, expect, it } from "vitest";
import { poolRegistry } from "../../../src/limiter/limiter-client";
import type { LimiterGrant } from "../../../src/limiter/limited";

/** A key's limiter object that grants the first `grants` asks at once (4 calls prepaid a lease) and leaves the rest waiting. */
function limiterNamespace(grants: number) {
  const released: string[] = [];
  let asks = 0;
  const stub = {
    acquire: (req: { count: number }) => {
      if (asks++ >= grants) return new Promise(() => undefined);
      const lease_ids = Array.from({ length: req.count }, (_, i) => `lease${asks}.${i}`);
      return Promise.resolve({ granted: true, lease_ids, prepaid_calls: lease_ids.map(() => 4) });
    },
    releaseAll: async (reports: { lease_id: string }[]) => void released.push(...reports.map((r) => r.lease_id)),
  };
  const ns = { getByName: () => stub } as unknown as Parameters<typeof poolRegistry>[0];
  return { ns, released };
}

const model = { interface: "openai_compatible", base_url: "http://fake.test/v1", model_name: "m" } as const;

describe("poolRegistry", () => {
  it("a 429 in one invocation's pool stops another's on the same key, whatever their calls' timeout", async () => {
    const { ns, released } = limiterNamespace(2);
    const key = `key-${Math.random()}`; // the isolate's 429 counts outlive a registry: a key of this test's own
    const one = poolRegistry(ns, { modelTimeoutMs: 1_000 })(model, key);
    const two = poolRegistry(ns, { modelTimeoutMs: 2_000 })(model, key);
    const a = (await one.acquire(10, 0)) as Extract<LimiterGrant, { granted: true }>;
    const b = (await two.acquire(10, 0)) as Extract<LimiterGrant, { granted: true }>;
    let waiting: LimiterGrant | undefined;
    void two.acquire(10, 0).then((g) => (waiting = g)); // asked before b's grant: it would take b
    await one.release({ lease_id: a.lease_id, rate_limited: true, retry_after_ms: 8_000 });
    await two.release({ lease_id: b.lease_id });
    expect(waiting).toBeUndefined();
    expect(released).toEqual([a.lease_id, b.lease_id]);
  });

  it("a lease another invocation's pool got before the key's 429 is not usable for a call yet to start", async () => {
    const { ns } = limiterNamespace(2);
    const key = `key-${Math.random()}`;
    const one = poolRegistry(ns, { modelTimeoutMs: 1_000 })(model, key);
    const two = poolRegistry(ns, { modelTimeoutMs: 1_000 })(model, key);
    const a = (await one.acquire(10, 0)) as Extract<LimiterGrant, { granted: true }>;
    const b = (await two.acquire(10, 0)) as Extract<LimiterGrant, { granted: true }>;
    expect(two.usable?.(b.lease_id)).toBe(true);
    await one.release({ lease_id: a.lease_id, rate_limited: true, retry_after_ms: 8_000 });
    expect(two.usable?.(b.lease_id)).toBe(false);
  });
});
