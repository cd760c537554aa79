// The local runtime's garbage-collection pacer (scripts/lib/workerd-gc.mjs): which isolates each
// round asks. The worker's own isolate is busiest when its garbage grows and can miss a round's
// deadline; dropped after one miss, it went uncollected for nine rounds and a 20,000-job run ended
// at 423–502 MB instead of 260–340 (bench/sharded-run, 6 Dec).
import { afterEach, describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { startGcPacer } from "../../../scripts/lib/workerd-gc.mjs";

type Round = { collected: number; silent: string[] };

let stop: (() => void) | null = null;
afterEach(() => {
  stop?.();
  stop = null;
});

/**
 * Runs the pacer over fake isolates until `rounds` rounds are done, RSS growing at every read (so
 * every tick starts a round). `answers(id, ask)` says whether the isolate's `ask`-th call answers.
 */
async function pace(rounds: number, ids: string[], answers: (id: string, ask: number) => boolean) {
  let rss = 100;
  const asks = new Map<string, number>(ids.map((id) => [id, 0]));
  const done: Round[] = [];
  await new Promise<void>((resolve) => {
    stop = startGcPacer({
      port: 0,
      pid: 0,
      growthMb: 1,
      headroomMb: 0,
      everyMs: 2,
      onCollect: (r: Round) => {
        done.push(r);
        if (done.length === rounds) resolve();
      },
      io: {
        rss: () => (rss += 5),
        targets: async () => ids.map((id) => ({ id })),
        collect: async ({ id }: { id: string }) => {
          const ask = asks.get(id)! + 1;
          asks.set(id, ask);
          if (!answers(id, ask)) throw new Error("no answer in time");
        },
      },
    });
  });
  stop!();
  return { asks, done: done.slice(0, rounds) };
}

describe("startGcPacer", () => {
  it("keeps asking an isolate that answered before, after a round it missed", async () => {
    // "ours" misses its second round; "idle" never answers.
    const { asks, done } = await pace(12, ["ours", "idle"], (id, ask) => id === "ours" && ask !== 2);
    expect(done[1]!.silent).toEqual(["ours"]);
    // Asked in every one of the 12 rounds, not only again in the 11th.
    expect(asks.get("ours")).toBe(12);
    expect(done.slice(2).every((r) => r.collected === 1)).toBe(true);
  });

  it("asks an isolate that never answered only every tenth round", async () => {
    const { asks, done } = await pace(12, ["ours", "idle"], (id) => id === "ours");
    // Rounds 1 and 11 list the isolates again and ask them all.
    expect(asks.get("idle")).toBe(2);
    expect(done[0]!.silent).toEqual(["idle"]);
    expect(done[10]!.silent).toEqual(["idle"]);
    expect(done[5]!.silent).toEqual([]);
  });
});
