/** The agentic workspace on R2: the port's bounds and path checks. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { r2Workspace, workspacePrefix } from "../../src/adapters/workspace";

const fresh = () => workspacePrefix({ run_id: `run-${crypto.randomUUID().slice(0, 8)}`, tenant_id: "default" }, "q1");

describe("R2 workspace port", () => {
  it("lists, reads (bounded), greps and writes under the question's prefix only", async () => {
    const prefix = fresh();
    await env.BLOBS.put(`${prefix}data/a.txt`, "alpha\nbeta 42\ngamma");
    await env.BLOBS.put(`${prefix}big.txt`, "x".repeat(20_000));
    await env.BLOBS.put(`${prefix.replace("q1", "q2")}secret.txt`, "other question");
    const ws = r2Workspace(env.BLOBS, prefix);
    const list = await ws.list();
    expect(list.ok && list.value.map((e) => e.path).sort()).toEqual(["big.txt", "data/a.txt"]);
    const big = await ws.read("big.txt", 0, 1_000_000);
    expect(big.ok && big.value.length).toBe(8_000);
    expect(await ws.grep("\\d+")).toEqual({ ok: true, value: [{ path: "data/a.txt", line: 2, text: "beta 42" }] });
    expect((await ws.read("../q2/secret.txt")).ok).toBe(false);
    expect((await ws.read("/etc/passwd")).ok).toBe(false);
    expect((await ws.grep("(")).ok).toBe(false);
    expect((await ws.write("data/../../x", "y")).ok).toBe(false);
  });
});
