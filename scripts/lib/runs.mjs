// The scripts' client for the run API (over the typed client, src/client/) and the verdict rules the scripts grade results by.
//
// Verdict of a VerificationResult:
//   pass  — metadata.failure is null and template.verify_result === true
//   error — metadata.failure.group is "retry" or "system" (the judge or the transport failed;
//           never counted as a wrong answer)
//   fail  — anything else
// A model's id is `config_id ?? model_name`.
import { createClient, TERMINAL_STATUSES } from "../../src/client/index.ts";

export const TERMINAL = new Set(TERMINAL_STATUSES);

/** @returns {"pass" | "fail" | "error"} */
export function verdictOf(result) {
  const failure = result?.metadata?.failure ?? null;
  if (failure === null && result?.template?.verify_result === true) return "pass";
  if (failure && (failure.group === "retry" || failure.group === "system")) return "error";
  return "fail";
}

export const modelIdOf = (m) => m?.config_id ?? m?.model_name ?? "?";

/** `question_id|answering model id|replicate` — the key expected.json uses. */
export function resultKey(result) {
  const md = result?.metadata ?? {};
  return `${md.question_id}|${modelIdOf(md.answering)}|${md.replicate ?? 1}`;
}

/** Counts per (answering, parsing) pair, sorted by model ids. */
export function summarize(results) {
  const rows = new Map();
  for (const r of results) {
    const answering = modelIdOf(r?.metadata?.answering);
    const parsing = modelIdOf(r?.metadata?.parsing);
    const key = `${answering}\u0000${parsing}`;
    if (!rows.has(key)) rows.set(key, { answering_model: answering, parsing_model: parsing, total: 0, passed: 0, failed: 0, errored: 0 });
    const row = rows.get(key);
    row.total += 1;
    const v = verdictOf(r);
    if (v === "pass") row.passed += 1;
    else if (v === "fail") row.failed += 1;
    else row.errored += 1;
  }
  const byIds = (a, b) => a.answering_model.localeCompare(b.answering_model) || a.parsing_model.localeCompare(b.parsing_model);
  return [...rows.values()].sort(byIds).map((row) => ({
    ...row,
    pass_rate: row.passed + row.failed > 0 ? row.passed / (row.passed + row.failed) : null,
  }));
}

/** A plain-text table of summary rows. */
export function formatSummary(rows) {
  const head = ["answering", "parsing", "total", "passed", "failed", "errored", "pass rate"];
  const body = rows.map((r) => [
    r.answering_model,
    r.parsing_model,
    String(r.total),
    String(r.passed),
    String(r.failed),
    String(r.errored),
    r.pass_rate === null || r.pass_rate === undefined ? "-" : `${(r.pass_rate * 100).toFixed(1)} %`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

/**
 * Compares verdicts with `{key: verdict}`.
 * @returns {{ missing: string[], extra: string[], duplicate: string[], different: {key: string, expected: string, got: string, why?: string}[] }}
 */
export function compareVerdicts(results, expected) {
  const got = new Map();
  const duplicate = [];
  for (const r of results) {
    const key = resultKey(r);
    if (got.has(key)) duplicate.push(key);
    got.set(key, r);
  }
  const missing = Object.keys(expected).filter((k) => !got.has(k));
  const extra = [...got.keys()].filter((k) => !(k in expected));
  const different = [];
  for (const [key, want] of Object.entries(expected)) {
    const r = got.get(key);
    if (!r) continue;
    const v = verdictOf(r);
    if (v !== want) {
      const f = r.metadata?.failure;
      const why = f
        ? `${f.group}/${f.category} at ${f.stage}: ${String(f.reason ?? "").slice(0, 120)}`
        : `verify_result=${r.template?.verify_result}`;
      different.push({ key, expected: want, got: v, why });
    }
  }
  return { missing, extra, duplicate, different };
}

/**
 * The scripts' client: the typed client (src/client/, `edgeval/client`) plus what the scripts
 * print: submit latency and body size, progress callbacks while waiting, every result at once.
 */
export function apiClient(baseUrl, token) {
  const ev = createClient({ url: baseUrl, token });

  return {
    /** POSTs a run; `body` may be an object or an already serialised string. */
    async submit(body) {
      const payload = typeof body === "string" ? body : JSON.stringify(body);
      const t0 = performance.now();
      const json = await ev.runs.create(payload);
      return { ...json, submit_ms: performance.now() - t0, body_bytes: Buffer.byteLength(payload) };
    },
    getRun: (id) => ev.runs.get(id),

    /**
     * Polls until the run reaches a terminal status. Calls onProgress(run, elapsedMs) about every
     * `intervalMs`. Throws an Error with `.run` set (the last seen state) on timeout.
     */
    async waitForRun(id, { timeoutMs, intervalMs = 1000, onProgress } = {}) {
      const t0 = Date.now();
      let run = null;
      for (;;) {
        run = await ev.runs.get(id);
        onProgress?.(run, Date.now() - t0);
        if (TERMINAL.has(run?.status)) return run;
        if (Date.now() - t0 > timeoutMs) {
          const p = run?.progress ?? {};
          const err = new Error(
            `run ${id} did not finish within ${Math.round(timeoutMs / 1000)} s (status ${run?.status}, ${p.done ?? "?"}/${p.total ?? "?"} done)`,
          );
          err.run = run;
          throw err;
        }
        await new Promise((r) => setTimeout(r, intervalMs));
      }
    },

    /** Every result of a run, following next_cursor. */
    async allResults(id, { limit = 500 } = {}) {
      const out = [];
      for await (const r of ev.results.iterate(id, { limit })) out.push(r);
      return out;
    },
  };
}
