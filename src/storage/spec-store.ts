/**
 * The run spec in R2: written once at submit (Durable Object values stop at 2 MB; a 1,000-question
 * benchmark with manual answers is larger), read by every job and parsed with its schema
 * (storage/run-spec.ts). It holds model configs with secret *names* only.
 */
import { RunSpec } from "./run-spec";
import { r2Keys, type RunRef } from "./r2-keys";

export async function saveSpec(blobs: R2Bucket, spec: RunSpec): Promise<string> {
  const key = r2Keys.spec(spec);
  await blobs.put(key, JSON.stringify(spec), { httpMetadata: { contentType: "application/json" } });
  return key;
}

/**
 * Specs are immutable once written, so each isolate keeps the few it has parsed recently:
 * a batch of jobs from one run parses its spec once.
 */
const cache = new Map<string, Promise<RunSpec | null>>();
const CACHE_LIMIT = 8;

/** The run's spec; null while it is not in R2 yet. Throws on an object that is not a spec. */
export function loadSpec(blobs: R2Bucket, run: RunRef): Promise<RunSpec | null> {
  const key = r2Keys.spec(run);
  const hit = cache.get(key);
  if (hit) return hit;
  const pending = (async () => {
    const obj = await blobs.get(key);
    if (!obj) return null;
    const parsed = RunSpec.safeParse(await obj.json());
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      throw new Error(`${key} is not a run spec: ${first?.path.join(".") || "(root)"}: ${first?.message ?? "invalid"}`);
    }
    return parsed.data;
  })();
  cache.set(key, pending);
  pending.then((s) => s ?? cache.delete(key)).catch(() => cache.delete(key));
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return pending;
}

/** The RunRef of a `runs` row: a row without coordinator_name is from before tenants, whose objects have no `t/` prefix. */
export const runRefOf = (row: { run_id: string; tenant_id: string; coordinator_name: string | null }): RunRef =>
  row.coordinator_name === null ? { run_id: row.run_id } : { run_id: row.run_id, tenant_id: row.tenant_id };

/** The run's spec by its row; throws when it is missing (a run row is written after its spec). */
export async function requireSpec(
  blobs: R2Bucket,
  row: { run_id: string; tenant_id: string; coordinator_name: string | null },
): Promise<RunSpec> {
  const spec = await loadSpec(blobs, runRefOf(row));
  if (!spec) throw new Error(`run ${row.run_id} has no spec in R2`);
  return spec;
}
