/**
 * Issue 16 item 7: /v1/judge takes deadline_ms (default 30,000, at most 120,000). A hanging
 * provider held a judge request for 4 min 3 s with retries: 0 (two 120 s timeouts); now, past
 * the deadline the answer is `pass: null` with a `timeout` error, and no further call is made —
 * not the retry of the hung call, not another unit's call.
 */
import { describe, expect, it, vi } from "vitest";
import { addFakeRules, api, fakeModel, fakeStats, uniqueModel } from "./helpers";

const post = async (json: unknown) => {
  const res = await api("/v1/judge", { method: "POST", json });
  return { status: res.status, body: (await res.json()) as any };
};
const sample = { input: "q", output: "an answer" };

describe("POST /v1/judge deadline_ms", () => {
  it("answers pass: null with a timeout error at the deadline, and makes no call after it", async () => {
    const model = uniqueModel("deadline-hang");
    await addFakeRules([{ match: { model }, reply: { fault: "hang" } }]);
    // The hung call ends after 1 s (its request_timeout); a timeout is retryable, so without the
    // deadline its retry would follow, and the second layer's unit would call next.
    const provider = fakeModel("j", model, { request_timeout: 1 });
    const pipeline = [{ layer: { unit: { type: "likert" } } }, { layer: { unit: { type: "likert", name: "second" } } }];
    const { status, body } = await post({ ...sample, config: { provider, pipeline }, deadline_ms: 200 });
    expect(status).toBe(200);
    expect(body.pass).toBeNull();
    expect(body.error).toMatchObject({ kind: "timeout", message: expect.stringContaining("deadline_ms 200 passed") });

    // Counted, not timed: once the hung call has ended and a retry's backoff (≤ 300 ms here) has passed, still one call.
    await vi.waitUntil(async () => ((await fakeStats(model)) as { in_flight?: number }).in_flight === 0, { timeout: 10_000, interval: 50 });
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await fakeStats(model)).total).toBe(1);
  });

  it("refuses a deadline that is not a whole number of milliseconds in 1..120000, naming deadline_ms", async () => {
    const provider = fakeModel("j", uniqueModel("deadline-400"));
    for (const deadline_ms of [0, 120_001, 1.5, "30s"]) {
      const { status, body } = await post({ ...sample, config: { provider, type: "likert" }, deadline_ms });
      expect(status, String(deadline_ms)).toBe(400);
      expect(body.error.issues[0].path).toBe("deadline_ms");
    }
  });

  it("leaves a judge that answers in time alone (default deadline)", async () => {
    const model = uniqueModel("deadline-ok");
    await addFakeRules([{ match: { model }, reply: { json: { answer: 4 } } }]);
    const { body } = await post({ ...sample, config: { provider: fakeModel("j", model), type: "likert" } });
    expect(body.error).toBeUndefined();
    expect(body.score).not.toBeNull();
  });
});
