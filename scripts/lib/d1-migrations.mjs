// The D1 migrations of the local database, applied with `wrangler d1 migrations apply --local`.
// startLocalStack (local-stack.mjs) runs it before `wrangler dev`; the local runtime
// (local-runtime.mjs) applies them itself.
import { runWrangler } from "./wrangler-process.mjs";

/** Applies the D1 migrations to the local database kept in `persistTo`. */
export async function applyMigrations({ persistTo, onLine, mask = (l) => l }) {
  const args = ["d1", "migrations", "apply", "edgeval-db", "--local"];
  if (persistTo) args.push("--persist-to", persistTo);
  const run = runWrangler(args, { mask, onLine });
  const { code, signal, error } = await run.exited;
  if (code !== 0) {
    throw new Error(`wrangler d1 migrations apply failed (${error?.message ?? `exit ${code ?? signal}`}):\n${run.tail()}`);
  }
}
