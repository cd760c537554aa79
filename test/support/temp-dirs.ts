/**
 * Temporary directories for one test file, removed once its tests have run. Call `tempDirs()` at
 * the file's top level (it registers the file's afterAll). Every `npm test` used to leave ~10 in
 * the OS temp directory, some holding the fake keys of a test's .dev.vars.local.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

export function tempDirs(): (prefix: string) => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  return (prefix) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
