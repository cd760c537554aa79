/**
 * Submit-time check of a benchmark's JavaScript (custom_verify with language javascript, callable
 * traits' javascript_code): each distinct source is evaluated once in the sandbox, with the usual
 * limits, and must define its entry function (`verify`, `evaluate`). A syntax error, a top level
 * that throws or runs away, or a missing entry is a 400 at the source's path, naming the line —
 * not an error on every job of the run. Edge code: the schemas cannot reach QuickJS (core rule).
 */
import type { Benchmark } from "../schemas/benchmark";
import { defineInSandbox, type SandboxOptions } from "./quickjs";

export interface SourceIssue {
  /** Path in the benchmark, e.g. `questions[3].template.custom_verify.source`. */
  path: string;
  message: string;
}

interface Pending {
  path: string;
  source: string;
  entry: "verify" | "evaluate";
}

type TraitHolder = { callable_traits?: { javascript_code?: string }[] } | null | undefined;

function callables(rubric: TraitHolder, at: string): Pending[] {
  return (rubric?.callable_traits ?? []).flatMap((t, j) =>
    t.javascript_code === undefined
      ? []
      : [{ path: `${at}.callable_traits[${j}].javascript_code`, source: t.javascript_code, entry: "evaluate" as const }],
  );
}

/** Every JavaScript source of the benchmark that does not define its entry function, with why. */
export async function javaScriptSourceIssues(benchmark: Benchmark, options: SandboxOptions = {}): Promise<SourceIssue[]> {
  const pending: Pending[] = [...callables(benchmark.rubric as TraitHolder, "rubric")];
  benchmark.questions.forEach((q, i) => {
    const code = q.template?.custom_verify;
    if (code?.language === "javascript")
      pending.push({ path: `questions[${i}].template.custom_verify.source`, source: code.source, entry: "verify" });
    pending.push(...callables(q.rubric as TraitHolder, `questions[${i}].rubric`));
  });
  const verdicts = new Map<string, Promise<string | null>>();
  const issues: SourceIssue[] = [];
  for (const p of pending) {
    const key = `${p.entry}\u0000${p.source}`;
    let v = verdicts.get(key);
    if (!v) {
      v = defineInSandbox(p.source, p.entry, options).then((o) => (o.ok ? null : o.error));
      verdicts.set(key, v);
    }
    const problem = await v;
    if (problem) issues.push({ path: p.path, message: problem });
  }
  return issues;
}
