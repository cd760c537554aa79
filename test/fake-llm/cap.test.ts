import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain ESM without types
import { startFakeLlm } from "./server.mjs";

describe("fake LLM concurrency cap (maxInFlight)", () => {
  let fake: any;
  beforeAll(async () => {
    fake = await startFakeLlm({ latencyMs: 200, maxInFlight: 3 });
  });
  afterAll(() => fake.close());

  const chat = () =>
    fetch(`${fake.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "cap-m", messages: [{ role: "user", content: "hi" }] }),
    }).then((r) => r.status);

  it("answers 429 at once to requests above the cap, counts them as over_cap, and never lets more than the cap in flight", async () => {
    const t0 = Date.now();
    const statuses = await Promise.all(Array.from({ length: 5 }, chat));
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    const stats = fake.stats("cap-m");
    expect(stats).toMatchObject({ total: 5, over_cap: 2, peak_in_flight: 3, in_flight: 0 });
    // once the first three finish, there is room again
    expect(await chat()).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(400);
  });
});
