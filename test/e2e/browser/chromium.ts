/**
 * Debian's Chromium for the browser tests: installed with apt where it is missing (so a fresh CI
 * machine runs them), and a browser that still cannot be found fails the test loudly, never skips.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";

export const CHROMIUM = process.env.EDGEVAL_CHROMIUM ?? "/usr/bin/chromium";

export function ensureChromium(): string {
  if (fs.existsSync(CHROMIUM)) return CHROMIUM;
  const sudo = process.getuid?.() === 0 ? [] : ["sudo", "-n"];
  const run = (args: string[]) => {
    const [cmd, ...rest] = [...sudo, ...args];
    execFileSync(cmd!, rest, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  };
  try {
    run(["apt-get", "update"]);
    run(["apt-get", "install", "-y", "--no-install-recommends", "chromium"]);
  } catch (err) {
    throw new Error(`the browser tests need Chromium at ${CHROMIUM}; installing it with apt-get failed: ${String(err)}`);
  }
  if (!fs.existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} is still missing`);
  return CHROMIUM;
}
