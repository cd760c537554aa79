// bench/floor's check that its wrangler.toml splits the job queue as npm start splits edgeval's
// (scripts/lib/job-queue-config.mjs LOCAL_JOB_QUEUE): shards, batch size, batch timeout.

/**
 * What differs between the `[[queues.consumers]]` blocks of `toml` and `want`, or null.
 * @param {string} toml
 * @param {{ shards: number, batchSize: number, batchTimeoutS: number }} want
 */
export function queueMismatch(toml, want) {
  const consumers = [
    ...toml.matchAll(/\[\[queues\.consumers\]\]\s*\nqueue = "([^"]+)"\s*\nmax_batch_size = (\d+)\s*\nmax_batch_timeout = ([\d.]+)/g),
  ];
  const same =
    consumers.length === want.shards && consumers.every((m) => Number(m[2]) === want.batchSize && Number(m[3]) === want.batchTimeoutS);
  if (same) return null;
  const have = consumers.map((m) => `${m[1]} ${m[2]}/${m[3]} s`).join(", ") || "none";
  return `its job queues are ${consumers.length} (${have}), npm start's ${want.shards} × batches of ${want.batchSize}/${want.batchTimeoutS} s (LOCAL_JOB_QUEUE): make them the same`;
}
