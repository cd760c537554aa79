// Every R2 key is built in src/storage/r2-keys.ts (issue 13): this scans src/ for string and
// template literals that look like R2 keys anywhere else, so a new `runs/${id}/…` written inline
// fails here instead of drifting from storage/SCHEMA.md.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../../../src");
const KEY_MODULE = "storage/r2-keys.ts";

/** A literal (after its opening quote) that starts an R2 key, or names one of its objects or folders. */
const KEY_LITERAL =
  /["'`](?:runs\/|t\/\$\{|cache\/v\d|cache-refs\/|benchmarks\/)|["'`][^"'`\n]*(?:\/checkpoints\/|\/workspaces\/|\b(?:spec|retries|answer|benchmark)\.json)/;

/** Blanks comments (a `//` right after `:` is a URL inside a string, kept). */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " ")).replace(/(^|[^:])\/\/.*$/gm, "$1");
}

function keyLiterals(source: string): { line: number; text: string }[] {
  return (
    withoutComments(source)
      .split("\n")
      // A module specifier (`import x from "…/benchmark.json"`) names a file of the repository, never an R2 key.
      .flatMap((text, i) =>
        KEY_LITERAL.test(text) && !/^\s*import\b.*\bfrom\s+["'][^"']+["'];?\s*$/.test(text) ? [{ line: i + 1, text: text.trim() }] : [],
      )
  );
}

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sources(full) : /\.[cm]?[jt]s$/.test(e.name) ? [full] : [];
  });
}

describe("R2 keys", () => {
  it("are built only in src/storage/r2-keys.ts", () => {
    const found = sources(SRC)
      .map((f) => path.relative(SRC, f).split(path.sep).join("/"))
      .filter((rel) => rel !== KEY_MODULE)
      .flatMap((rel) => keyLiterals(fs.readFileSync(path.join(SRC, rel), "utf8")).map((h) => `src/${rel}:${h.line}: ${h.text}`));
    expect(found).toEqual([]);
  });

  it("the scan sees the key module's own literals, and inline keys elsewhere (so it can fail)", () => {
    expect(keyLiterals(fs.readFileSync(path.join(SRC, KEY_MODULE), "utf8")).length).toBeGreaterThanOrEqual(5);
    for (const inline of [
      "const k = `runs/${runId}/spec.json`;",
      'await blobs.get("cache/v1/" + key);',
      "put(`t/${tenant}/runs/${run}/x`, v)",
      "`${prefix}/checkpoints/${job}/retries.json`",
      "const b = 'benchmarks/' + id;",
      'export const CACHE_REFS = "cache-refs/";',
    ]) {
      expect(keyLiterals(inline), inline).toHaveLength(1);
    }
    for (const fine of ['app.get("/runs/:run_id", h);', "// runs/{run}/spec.json in a comment", 'fetch("https://api.example/runs/1")']) {
      expect(keyLiterals(fine), fine).toEqual([]);
    }
  });
});
