// Issue 15 item 1: `npm run dev -- --port P --fake-port Q` on ports other than the defaults prints
// curl lines that work as printed. This test runs those lines through bash (no file edited, no
// RUN_ID pasted by hand: the POST line sets it) and checks that the run grades every verdict of
// examples/basic as expected.json says.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { freePort } from "../../scripts/lib/local-stack.mjs";
// @ts-expect-error plain-Node module without types
import { compareVerdicts, TERMINAL } from "../../scripts/lib/runs.mjs";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PROVIDER_VARS = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"];

function bash(line: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("bash", ["-c", line], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${line}\n${stderr}\n${err.message}`)) : resolve(stdout),
    );
  });
}

/** Starts npm run dev's script and resolves with everything it printed once the curl lines are out. */
function startDev(args: string[]): { child: ChildProcess; ready: Promise<string>; output: () => string } {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of PROVIDER_VARS) delete env[k];
  const child = spawn(process.execPath, [path.join(ROOT, "scripts/dev.mjs"), ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const ready = new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      if (/results\?limit=100/.test(out)) resolve(out);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`npm run dev exited (${code}) before it was ready:\n${out}`)));
  });
  return { child, ready, output: () => out };
}

describe("npm run dev on non-default ports", () => {
  let dev: ReturnType<typeof startDev> | undefined;
  // Its own state (other test files run npm run dev side by side; test/e2e/dev-server.ts says why).
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "edgeval-dev-state-"));
  afterAll(async () => {
    if (dev && dev.child.exitCode === null) {
      const exited = new Promise((r) => dev!.child.once("exit", r));
      dev.child.kill("SIGINT"); // dev.mjs stops its own wrangler and fake
      await exited;
    }
    fs.rmSync(stateDir, { recursive: true, force: true });
  });

  it("prints curl lines that, run as printed, grade examples/basic against the fake on its real port", async () => {
    const [port, fakePort] = [await freePort(), await freePort()];
    expect([port, fakePort]).not.toContain(8787);
    expect([port, fakePort]).not.toContain(9797);
    dev = startDev(["--port", String(port), "--fake-port", String(fakePort), "--state-dir", stateDir]);
    const printed = await dev.ready;

    const lines = printed
      .split("\n")
      .filter((l) => /^ {2}(curl|RUN_ID=)/.test(l))
      .map((l) => l.trim());
    expect(lines, printed).toHaveLength(4);
    for (const l of lines) expect(l).toContain(`http://127.0.0.1:${port}/`);
    const [health, submit, status, results] = lines as [string, string, string, string];

    // The run body it wrote points every model at the fake's real port.
    const bodyFile = /--data-binary @(\S+)/.exec(submit)![1]!;
    const body = fs.readFileSync(path.resolve(ROOT, bodyFile), "utf8");
    expect(body).toContain(`http://127.0.0.1:${fakePort}/v1`);
    expect(body).not.toContain(":9797");

    expect(JSON.parse(await bash(health))).toEqual({ ok: true });
    const runId = /^run (\S+)$/m.exec(await bash(submit))?.[1];
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);

    let run: { status: string } = { status: "queued" };
    const deadline = Date.now() + 90_000;
    while (!TERMINAL.has(run.status) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      run = JSON.parse(await bash(status, { RUN_ID: runId! }));
    }
    expect(run.status).toBe("completed");

    const page = JSON.parse(await bash(results, { RUN_ID: runId! })) as { results: unknown[]; next_cursor: string | null };
    expect(page.next_cursor).toBeNull();
    const expected = JSON.parse(fs.readFileSync(path.join(ROOT, "examples/basic/expected.json"), "utf8"));
    const cmp = compareVerdicts(page.results, expected);
    expect(cmp).toEqual({ missing: [], extra: [], duplicate: [], different: [] });
    expect(page.results).toHaveLength(48);
  });
});
