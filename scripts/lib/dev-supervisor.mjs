// npm run dev's loop around wrangler dev. wrangler dev rebuilds the worker on every save; when a
// save leaves a module that throws as it loads (a name used before its import is added, say),
// workerd cannot start it and wrangler dev exits ("The Workers runtime failed to start"), which
// used to end npm run dev in the middle of an edit. Here the exit is said, the next change to the
// sources is waited for, and the stack is started again on the same state (runs still going
// resume: README, Local development). Only a first start that fails ends it (a port in use, a
// build that never worked). Ctrl-C stops it as before (local-stack.mjs's signal handlers).
import fs from "node:fs";
import path from "node:path";

/**
 * @param {object} o
 * @param {(first: boolean) => Promise<{ exited: Promise<{ code: number | null, signal: string | null }>, stop: () => Promise<void> }>} o.start
 * @param {() => Promise<void>} o.waitForChange resolves at the next change to the sources
 * @param {(message: string) => void} o.say
 * @param {number} [o.restarts] stop after this many restarts (tests); forever by default
 */
export async function superviseDev({ start, waitForChange, say, restarts = Number.POSITIVE_INFINITY }) {
  let stack = await start(true);
  for (let n = 0; n < restarts; n++) {
    const { code, signal } = await stack.exited;
    await stack.stop();
    say(
      `wrangler dev exited (${code ?? signal}): the worker could not start after a change (its error is above). Fix it and save: the dev server starts again on the same state. Ctrl-C to stop.`,
    );
    for (;;) {
      await waitForChange();
      try {
        stack = await start(false);
        break;
      } catch (err) {
        const why = String(err?.message ?? err)
          .split("\n")[0]
          .replace(/:$/, "");
        say(`the worker still does not start (${why}); waiting for the next change`);
      }
    }
  }
  return stack;
}

/** Resolves at the first change under `paths` (files or folders, recursively), once edits have been quiet for `quietMs`. */
export function nextChange(paths, quietMs = 300) {
  return new Promise((resolve) => {
    let timer;
    const watchers = paths
      .filter((p) => fs.existsSync(p))
      .map((p) =>
        fs.watch(p, { recursive: fs.statSync(p).isDirectory() }, () => {
          clearTimeout(timer);
          timer = setTimeout(() => {
            for (const w of watchers) w.close();
            resolve();
          }, quietMs);
        }),
      );
  });
}

/** What a worker edit touches: its sources, its config and its migrations. */
export const devSources = (root) => ["src", "migrations", "wrangler.toml"].map((p) => path.join(root, p));
