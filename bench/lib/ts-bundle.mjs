// Shared by the micro-benchmarks: load the project's TypeScript (the code the Worker runs) into
// Node by bundling an entry with esbuild, and time a function in batches.
import { build } from "esbuild";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const ROOT = path.resolve(import.meta.dirname, "../..");

/** Bundles `exports` (lines of `export … from "./src/…"`) and imports the result. */
export async function importTs(exports, { platform = "neutral", plugins = [] } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), "edgeval-bench-"));
  const outfile = path.join(dir, "entry.mjs");
  try {
    await build({
      stdin: { contents: exports.join("\n"), resolveDir: ROOT, loader: "ts" },
      bundle: true,
      format: "esm",
      platform,
      mainFields: ["module", "main"],
      outfile,
      logLevel: "warning",
      plugins,
    });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Median and p95 of per-call µs over `batches` batches of `batch` calls, after a warm-up (JIT). */
export function timePerCall(fn, { batch, batches, warmupBatches = 10 }) {
  for (let i = 0; i < batch * warmupBatches; i++) fn(i);
  const samples = [];
  for (let b = 0; b < batches; b++) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) fn(i);
    samples.push(((performance.now() - t0) * 1000) / batch);
  }
  samples.sort((x, y) => x - y);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { median: at(0.5), p95: at(0.95) };
}
