/**
 * The ProviderLimiter prepays a lease its holder parks between requests (src/limiter/parked-lease.ts)
 * only while the key is far from its limits; a lease pool's prepay (no `park`) is unchanged.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const ask = (limits: object, extra: object = {}) => ({ provider: "openai_compatible", estimated_tokens: 10, limits, prepay: 8, ...extra });

describe("ProviderLimiter: leases to park", () => {
  it("prepays a lease to park on a key far from its limits", async () => {
    const limiter = env.LIMITER.getByName(`park-${crypto.randomUUID()}`);
    expect(await limiter.acquire(ask({ concurrency: 64, rpm: 6_000 }, { park: true }))).toMatchObject({
      granted: true,
      prepaid_calls: [8],
    });
  });

  it("prepays nothing to park past half the key's concurrency or half its rpm; a pool's prepay is unchanged", async () => {
    const one = env.LIMITER.getByName(`park-c1-${crypto.randomUUID()}`);
    expect(await one.acquire(ask({ concurrency: 1 }, { park: true }))).toMatchObject({ granted: true, prepaid_calls: [0] });

    const four = env.LIMITER.getByName(`park-c4-${crypto.randomUUID()}`);
    expect(await four.acquire(ask({ concurrency: 4 }, { park: true }))).toMatchObject({ prepaid_calls: [8] });
    expect(await four.acquire(ask({ concurrency: 4 }, { park: true }))).toMatchObject({ prepaid_calls: [8] });
    // a third lease held would be more than half of 4
    expect(await four.acquire(ask({ concurrency: 4 }, { park: true }))).toMatchObject({ granted: true, prepaid_calls: [0] });

    const slow = env.LIMITER.getByName(`park-rpm-${crypto.randomUUID()}`);
    expect(await slow.acquire(ask({ rpm: 16 }, { park: true }))).toMatchObject({ granted: true, prepaid_calls: [0] });
    expect(await slow.acquire(ask({ rpm: 16 }))).toMatchObject({ granted: true, prepaid_calls: [8] });
  });
});
