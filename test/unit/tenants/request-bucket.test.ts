import { describe, expect, it } from "vitest";
import { RequestBucket } from "../../../src/tenants/request-bucket";
import { rateLimitHeaders } from "../../../src/tenants/ratelimit-headers";

describe("request bucket", () => {
  it("allows a burst of the quota, then refuses with the seconds until one request refills", () => {
    const b = new RequestBucket(6, 60, 0);
    const seen = Array.from({ length: 6 }, () => b.take(6, 0));
    expect(seen.map((d) => d.allowed)).toEqual([true, true, true, true, true, true]);
    expect(seen.map((d) => d.remaining)).toEqual([5, 4, 3, 2, 1, 0]);
    const refused = b.take(6, 0);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterS: 10, resetS: 60 });
    // one request's worth (10 s at 6 per minute) later, exactly one more is allowed
    expect(b.take(6, 10_000)).toMatchObject({ allowed: true, remaining: 0 });
    expect(b.take(6, 10_000).allowed).toBe(false);
  });

  it("refills to the quota and no further", () => {
    const b = new RequestBucket(3, 60, 0);
    b.take(3, 0);
    expect(b.take(3, 3_600_000)).toMatchObject({ allowed: true, remaining: 2, resetS: 20 });
  });

  it("applies a lowered quota at once", () => {
    const b = new RequestBucket(10, 60, 0);
    b.take(10, 0);
    b.take(10, 0);
    expect(b.take(2, 0)).toMatchObject({ allowed: false, remaining: 0 });
  });
});

describe("RateLimit headers (draft-ietf-httpapi-ratelimit-headers-10)", () => {
  it("names each policy with q and w, and what is left with r and t", () => {
    expect(
      rateLimitHeaders([
        { policy: "requests", quota: 600, windowS: 60, remaining: 12, resetS: 30 },
        { policy: "concurrent_runs", quota: 2, remaining: 0 },
      ]),
    ).toEqual({
      "RateLimit-Policy": '"requests";q=600;w=60, "concurrent_runs";q=2',
      RateLimit: '"requests";r=12;t=30, "concurrent_runs";r=0',
    });
  });
});
