/**
 * `npm run dev` on free ports as a subprocess, for tests that use it the way a person would: it
 * resolves with everything the script printed once its ready lines are out, and stop() ends it
 * (SIGINT: dev.mjs stops its own wrangler and fake).
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
// @ts-expect-error plain-Node module without types
import { freePort } from "../../scripts/lib/local-stack.mjs";

export const ROOT = path.resolve(import.meta.dirname, "../..");
const PROVIDER_VARS = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"];

export interface DevServer {
  url: string;
  port: number;
  fakePort: number;
  printed: string;
  stop(): Promise<void>;
}

/**
 * `extraArgs` go to dev.mjs after the ports (e.g. `--fake-script F`). Each server keeps its state in
 * a temporary directory of its own: test files run side by side, and one dev server per state
 * directory is all dev.mjs allows (two on the same SQLite files fail each other's writes).
 */
export async function startDev(extraArgs: readonly string[] = []): Promise<DevServer> {
  const [port, fakePort] = [(await freePort()) as number, (await freePort()) as number];
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "edgeval-dev-state-"));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of PROVIDER_VARS) delete env[k];
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(ROOT, "scripts/dev.mjs"), "--port", String(port), "--fake-port", String(fakePort), "--state-dir", stateDir, ...extraArgs],
    {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  const printed = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      if (/npx edgeval run .*\n/.test(out)) resolve(out);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`npm run dev exited (${code}) before it was ready:\n${out}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    fakePort,
    printed,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGINT");
        await exited;
      }
      fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
