// One `npm run dev` per state directory. Two workerd processes on the same D1 and Durable Object
// SQLite files fail each other's writes (a second dev server's migrations, its 500s), so a dev
// server claims its state directory with a lock file holding its PID, and a second one is refused
// with what to do. A lock whose process is gone (killed, crashed) is taken over.
import fs from "node:fs";
import path from "node:path";

export const LOCK_FILE = "edgeval-dev.lock";

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err?.code === "EPERM"; // alive, owned by someone else
  }
};

/**
 * Claims `dir` for this process. Returns `release` (idempotent), or throws an Error whose message
 * names the PID holding the directory.
 * @param {string} dir
 * @param {number} [pid]
 */
export function claimStateDir(dir, pid = process.pid) {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${pid}\n`, { flag: "wx" });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          // Only our own lock: a stale-lock takeover by another process must not be undone by us.
          if (fs.readFileSync(file, "utf8").trim() === String(pid)) fs.rmSync(file, { force: true });
        } catch {
          // already gone (the directory was deleted)
        }
      };
    } catch (err) {
      if (err?.code !== "EEXIST") throw err;
      const holder = Number(fs.readFileSync(file, "utf8").trim());
      if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
        throw new Error(
          `another npm run dev (pid ${holder}) keeps its state in ${dir}; stop it, or give this one a directory of its own with --state-dir DIR`,
        );
      }
      fs.rmSync(file, { force: true }); // its process is gone
    }
  }
  throw new Error(`could not claim ${dir}: ${file} keeps coming back; is another npm run dev starting?`);
}
