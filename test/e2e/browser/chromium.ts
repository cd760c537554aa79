/**
 * Debian's Chromium for the browser tests: installed with apt where it is missing (so a fresh CI
 * machine runs them), and a browser that still cannot be found fails the test loudly, never skips.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";

export const CHROMIUM = process.env.EDGEVAL_CHROMIUM ?? "/usr/bin/chromium";

/**
 * Two browser test files run side by side (vitest.config.ts), so two installs may race for apt's
 * locks: each waits for the lock, and one that still fails finds the other's Chromium, or tries again.
 */
export function ensureChromium(): string {
  if (fs.existsSync(CHROMIUM)) return CHROMIUM;
  const sudo = process.getuid?.() === 0 ? [] : ["sudo", "-n"];
  const run = (args: string[]) => {
    const [cmd, ...rest] = [...sudo, ...args];
    execFileSync(cmd!, rest, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  };
  const wait = ["-o", "DPkg::Lock::Timeout=300"];
  let failure: unknown;
  for (let attempt = 0; attempt < 3 && !fs.existsSync(CHROMIUM); attempt++) {
    try {
      run(["apt-get", ...wait, "update"]);
      run(["apt-get", ...wait, "install", "-y", "--no-install-recommends", "chromium"]);
    } catch (err) {
      failure = err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5_000); // the other install may finish meanwhile
    }
  }
  if (fs.existsSync(CHROMIUM)) return CHROMIUM;
  if (failure) throw new Error(`the browser tests need Chromium at ${CHROMIUM}; installing it with apt-get failed: ${String(failure)}`);
  throw new Error(`apt-get installed chromium, but ${CHROMIUM} is still missing`);
}
