/**
 * Run progress for people and for CI logs: a bar redrawn in place on a terminal; on anything else
 * (a pipe, a CI log) plain lines, at most one per 10 % step or 5 s, so a long run does not flood it.
 */
import type { RetryNotice, RunEvent } from "../src/client/index.ts";
import type { Out } from "./io.ts";

export function progressReporter(out: Out, now: () => number = Date.now) {
  const started = now();
  let lastLineAt = 0;
  let lastStep = -1;
  let done = 0;
  let total = 0;
  /** From the server's progress events (absent where it has no event stream: polling has no ETA). */
  let costUsd: number | null | undefined;
  let etaS: number | null | undefined;
  const verdicts: Record<string, number> = {};
  let lastStatus = "";

  const text = () => {
    const pct = total ? Math.floor((done / total) * 100) : 0;
    const counts = Object.entries(verdicts)
      .map(([v, n]) => `${v} ${n}`)
      .join(", ");
    const cost = typeof costUsd === "number" ? `, $${costUsd.toFixed(4)} so far` : "";
    const eta = typeof etaS === "number" && done < total ? `, ETA ${etaS} s` : "";
    return `${done}/${total} results (${pct} %)${counts ? `, ${counts}` : ""}${cost}, ${Math.round((now() - started) / 1000)} s${eta}`;
  };

  return {
    onEvent(e: RunEvent) {
      if (e.type === "result") {
        const v = String((e.data as { verdict?: unknown }).verdict ?? "");
        if (v) verdicts[v] = (verdicts[v] ?? 0) + 1;
        return;
      }
      if (e.type === "progress") {
        const d = e.data as { done: number; total: number; cost_usd?: number | null; eta_s?: number | null };
        done = d.done;
        total = d.total;
        costUsd = d.cost_usd;
        etaS = d.eta_s;
        if (out.isTTY) {
          const width = 30;
          const filled = total ? Math.round((done / total) * width) : 0;
          out.status(`[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${text()}`);
          return;
        }
        const step = total ? Math.floor((done / total) * 10) : 0;
        if (step !== lastStep || now() - lastLineAt >= 5000 || done === total) {
          lastStep = step;
          lastLineAt = now();
          out.err(`progress ${text()}`);
        }
        return;
      }
      if (e.type === "status") {
        // The stream sends the status on every (re)connect and again at the end: print it when it changes.
        const status = (e.data as { status: string }).status;
        if (status !== lastStatus) out.err(`status ${status}`);
        lastStatus = status;
      }
    },
  };
}

/** One line per retried request, so a CI log shows the blip it outlasted (or the one it did not). */
export function retryLine(out: Out) {
  return (n: RetryNotice) => out.err(`(retrying in ${Math.round(n.delayMs / 100) / 10} s, failure ${n.failures} in a row: ${n.error.message})`);
}
