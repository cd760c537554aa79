// npm run dev's loop (scripts/lib/dev-supervisor.mjs): wrangler dev exiting after a save that left
// the worker unable to start no longer ends the dev server; it starts again at the next change.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { nextChange, superviseDev } from "../../../scripts/lib/dev-supervisor.mjs";

/** A stack whose wrangler dev exits with `code` when `crash()` is called. */
function fakeStack(log: string[]) {
  let crash!: (r: { code: number; signal: null }) => void;
  const exited = new Promise<{ code: number; signal: null }>((r) => (crash = r));
  return { exited, stop: async () => void log.push("stop"), crash: () => crash({ code: 1, signal: null }) };
}

describe("superviseDev", () => {
  it("after wrangler dev exits it waits for a change, then starts again; a start that fails waits for the next change", async () => {
    const log: string[] = [];
    const stacks: ReturnType<typeof fakeStack>[] = [];
    let starts = 0;
    const start = async (first: boolean) => {
      starts += 1;
      log.push(`start ${first ? "first" : "again"}`);
      // The second start finds the sources still broken.
      if (starts === 2) throw new Error("wrangler dev exited before it was ready (exit 1):\n…");
      const s = fakeStack(log);
      stacks.push(s);
      return s;
    };
    let changes = 0;
    const waitForChange = async () => {
      changes += 1;
      log.push("wait");
    };
    const done = superviseDev({ start, waitForChange, say: (m: string) => log.push(m), restarts: 1 });
    await new Promise((r) => setTimeout(r, 10));
    expect(log).toEqual(["start first"]); // running: nothing more until it exits
    stacks[0]!.crash();
    const last = await done;
    expect(last).toBe(stacks[1]);
    expect(log).toEqual([
      "start first",
      "stop",
      expect.stringMatching(/^wrangler dev exited \(1\): the worker could not start after a change .* Fix it and save/),
      "wait",
      "start again",
      "the worker still does not start (wrangler dev exited before it was ready (exit 1)); waiting for the next change",
      "wait",
      "start again",
    ]);
    expect(changes).toBe(2);
  });

  it("a first start that fails ends it (a port in use, a build that never worked)", async () => {
    const err = Object.assign(new Error("in use"), { code: "EADDRINUSE" });
    await expect(superviseDev({ start: async () => Promise.reject(err), waitForChange: async () => {}, say: () => {} })).rejects.toBe(err);
  });
});

describe("nextChange", () => {
  it("resolves once a file under a watched folder changes, after the edits go quiet", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dev-watch-"));
    fs.mkdirSync(path.join(dir, "sub"));
    let resolved = false;
    const change = nextChange([dir, path.join(dir, "absent.toml")], 50).then(() => (resolved = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(resolved).toBe(false);
    fs.writeFileSync(path.join(dir, "sub", "a.ts"), "export {}");
    await change;
    expect(resolved).toBe(true);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
