import { describe, expect, it, vi } from "vitest";
import { slotSource } from "../../../src/limiter/limiter-client";
import type { ReleaseReport } from "../../../src/limiter/limiter-state";

/** A limiter namespace whose one object records the releases it gets, call by call; each call returns when the test says. */
function fakeLimiter(fail = false) {
  const calls: ReleaseReport[][] = [];
  const answers: (() => void)[] = [];
  const stub = {
    releaseAll: (reports: ReleaseReport[]) => {
      calls.push(reports);
      return new Promise<void>((resolve, reject) => answers.push(() => (fail ? reject(new Error("limiter unreachable")) : resolve())));
    },
  };
  const ns = { getByName: () => stub } as unknown as Parameters<typeof slotSource>[0];
  /** Answers the oldest call not answered yet. */
  const answer = async () => {
    answers.shift()!();
    await settle();
  };
  return { ns, calls, answer };
}

/**
 * A slot source whose stub is known (the first call names the object, a digest that takes a
 * macrotask); its calls are counted from here on.
 */
async function warmSource(fake: ReturnType<typeof fakeLimiter>) {
  const source = slotSource(fake.ns, model, "key");
  const first = source.release({ lease_id: "warm-up" }).catch(() => undefined);
  await vi.waitFor(() => expect(fake.calls).toHaveLength(1));
  await fake.answer();
  await first;
  fake.calls.length = 0;
  return source;
}

const model = { interface: "openai_compatible" as const, base_url: "http://127.0.0.1:1/v1", model_name: "m" };

/** Lets every pending promise reaction run; no timer fires in between. */
const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe("slotSource releases", () => {
  it("sends a release at once, without waiting for a timer", async () => {
    const fake = fakeLimiter();
    const { calls } = fake;
    void (await warmSource(fake)).release({ lease_id: "a", calls: 2 });
    await settle();
    // A release held back keeps its prepaid calls in the key's request window (scenario 6 stalled so).
    expect(calls).toEqual([[{ lease_id: "a", calls: 2 }]]);
  });

  it("sends the releases made while one is in flight together, as soon as it returns", async () => {
    const fake = fakeLimiter();
    const { calls, answer } = fake;
    const source = await warmSource(fake);
    const done: string[] = [];
    const release = (lease_id: string) => source.release({ lease_id }).then(() => void done.push(lease_id));
    void release("a");
    await settle();
    void release("b");
    void release("c");
    await settle();
    expect(calls).toEqual([[{ lease_id: "a" }]]);
    await answer();
    expect(calls).toEqual([[{ lease_id: "a" }], [{ lease_id: "b" }, { lease_id: "c" }]]);
    // Each caller waits for the call that carried its release.
    expect(done).toEqual(["a"]);
    await answer();
    expect(done).toEqual(["a", "b", "c"]);
    void release("d");
    await settle();
    expect(calls).toHaveLength(3);
  });

  it("sends a 429 at once even while a release is in flight: until the limiter hears of it, it may grant calls inside the retry-after", async () => {
    const fake = fakeLimiter();
    const { calls } = fake;
    const source = await warmSource(fake);
    void source.release({ lease_id: "a" });
    await settle();
    void source.release({ lease_id: "b", rate_limited: true, retry_after_ms: 8_000 });
    await settle();
    expect(calls).toEqual([[{ lease_id: "a" }], [{ lease_id: "b", rate_limited: true, retry_after_ms: 8_000 }]]);
  });

  it("fails every release of a call that failed", async () => {
    const fake = fakeLimiter(true);
    const { answer } = fake;
    const source = await warmSource(fake);
    const first = source.release({ lease_id: "a" });
    await settle();
    const later = [source.release({ lease_id: "b" }), source.release({ lease_id: "c" })];
    await answer();
    await answer();
    const outcomes = await Promise.allSettled([first, ...later]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
  });
});
