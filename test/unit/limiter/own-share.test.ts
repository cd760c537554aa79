/** withOwnShare: a call holds the run's own lease and the shared one, and gives its own back when the shared limiter refuses. */
import { describe, expect, it } from "vitest";
import type { LimiterClient, LimiterGrant } from "../../../src/limiter/limited";
import { withOwnShare } from "../../../src/limiter/own-share";

function scripted(name: string, grants: LimiterGrant[]) {
  const released: unknown[] = [];
  const client: LimiterClient = {
    acquire: async () => grants.shift() ?? { granted: true, lease_id: `${name}-x` },
    release: async (r) => void released.push(r),
  };
  return { client, released };
}

describe("withOwnShare", () => {
  it("grants only when both grant, and releases each lease with the call's report", async () => {
    const own = scripted("own", [{ granted: true, lease_id: "l1" }]);
    const shared = scripted("shared", [{ granted: true, lease_id: "l7" }]);
    const both = withOwnShare(own.client, shared.client);
    const g = await both.acquire(100);
    expect(g).toEqual({ granted: true, lease_id: "l1|l7" });
    await both.release({ lease_id: "l1|l7", rate_limited: true, retry_after_ms: 500 });
    expect(own.released).toEqual([{ lease_id: "l1", rate_limited: true, retry_after_ms: 500 }]);
    expect(shared.released).toEqual([{ lease_id: "l7", rate_limited: true, retry_after_ms: 500 }]);
  });

  it("the run's own refusal stops the call before the shared limiter is asked", async () => {
    const own = scripted("own", [{ granted: false, wait_ms: 60_000, reason: "rate" }]);
    const shared = scripted("shared", []);
    let asked = 0;
    const counting: LimiterClient = { ...shared.client, acquire: async (t, s) => (asked++, shared.client.acquire(t, s)) };
    expect(await withOwnShare(own.client, counting).acquire(100)).toEqual({ granted: false, wait_ms: 60_000, reason: "rate" });
    expect(asked).toBe(0);
  });

  it("a shared refusal gives the run's own lease back and passes the wait on", async () => {
    const own = scripted("own", [{ granted: true, lease_id: "l2" }]);
    const shared = scripted("shared", [{ granted: false, wait_ms: 1_000, reason: "blocked" }]);
    expect(await withOwnShare(own.client, shared.client).acquire(100)).toEqual({ granted: false, wait_ms: 1_000, reason: "blocked" });
    expect(own.released).toEqual([{ lease_id: "l2" }]);
  });
});
