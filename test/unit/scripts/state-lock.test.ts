// One npm run dev per state directory (scripts/lib/state-lock.mjs): two workerd processes on the
// same SQLite files fail each other's writes, which is how two dev servers side by side in the e2e
// project answered POST /v1/admin/tenants with a 500.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { claimStateDir, LOCK_FILE } from "../../../scripts/lib/state-lock.mjs";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const dirs: string[] = [];
const tempDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "edgeval-state-lock-"));
  dirs.push(d);
  return d;
};
/** The PID of a process that has already exited. */
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!;

afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("claimStateDir", () => {
  it("refuses a directory a live process holds, naming it and saying what to do", () => {
    const dir = tempDir();
    const release = claimStateDir(dir);
    expect(fs.readFileSync(path.join(dir, LOCK_FILE), "utf8").trim()).toBe(String(process.pid));
    expect(() => claimStateDir(dir, process.pid + 1)).toThrow(`another npm run dev (pid ${process.pid}) keeps its state in ${dir}`);
    expect(() => claimStateDir(dir, process.pid + 1)).toThrow("--state-dir DIR");
    release();
    release(); // twice is harmless
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    claimStateDir(dir, process.pid + 1)();
  });

  it("takes over the lock of a process that is gone, and a late release of the old one leaves it", () => {
    const dir = tempDir();
    const gone = deadPid();
    fs.writeFileSync(path.join(dir, LOCK_FILE), `${gone}\n`);
    const release = claimStateDir(dir);
    expect(fs.readFileSync(path.join(dir, LOCK_FILE), "utf8").trim()).toBe(String(process.pid));
    release();
    // A release by a process whose lock was taken over removes nothing.
    const staleRelease = claimStateDir(dir, gone);
    fs.writeFileSync(path.join(dir, LOCK_FILE), `${process.pid}\n`);
    staleRelease();
    expect(fs.readFileSync(path.join(dir, LOCK_FILE), "utf8").trim()).toBe(String(process.pid));
  });

  it("makes npm run dev exit 1 before starting anything when its state directory is held", () => {
    const dir = tempDir();
    const release = claimStateDir(dir);
    const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/dev.mjs"), "--no-fake", "--state-dir", dir], {
      encoding: "utf8",
      timeout: 20_000,
    });
    release();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`another npm run dev (pid ${process.pid}) keeps its state in ${dir}`);
    expect(r.stdout).not.toContain("edgeval dev server");
  });
});
