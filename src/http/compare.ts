/**
 * GET /v1/runs/compare?a=RUN&b=RUN[&a_model=ID&b_model=ID][&a_parsing_model=ID&b_parsing_model=ID][&limit=&cursor=] (src/compare/README.md):
 * per model pair the pass-rate delta with McNemar's exact p, and per question the verdicts that
 * flipped (paged by question). Mounted before /v1/runs/:id, which would take "compare" for an id.
 */
import { type Context, Hono } from "hono";
import type { z } from "zod";
import { ALPHA } from "../compare/compare-runs";
import { compareStoredRuns } from "../compare/compare-stored";
import { endedComparison } from "../compare/ended-comparisons";
import { CompareQuery } from "../schemas/api";
import type { RunSpec } from "../storage/run-spec";
import type { RunRecord } from "../storage/runs-repo";
import { requireSpec } from "../storage/spec-store";
import { type AppEnv, requireScope } from "./auth";
import { validateQuery } from "./body";
import { decodeCursor, encodeCursor } from "./cursor";
import { invalidQuery } from "./errors";
import { requireRun } from "./runs";

export const runCompare = new Hono<AppEnv>();

runCompare.get("/compare", requireScope("runs:read"), async (c) =>
  c.json(await compareRuns(c, validateQuery(CompareQuery, c.req.queries()))),
);

/**
 * The comparison of run B with run A as GET /v1/runs/compare answers it, one page of flipped
 * questions; the dashboard's compare page renders the same object. Runs of another tenant are 404s.
 */
export async function compareRuns(c: Context<AppEnv>, q: z.output<typeof CompareQuery>) {
  const [a, b] = [await requireRun(c, q.a), await requireRun(c, q.b)];
  // Read at most once each, and only when an id is to be checked.
  const specs = { a: once(() => requireSpec(c.env.BLOBS, a)), b: once(() => requireSpec(c.env.BLOBS, b)) };
  const models = await namedPair(q, "model", "answering model", specs, (s) => s.answering_models, { a, b });
  const judges = await namedPair(q, "parsing_model", "parsing model", specs, (s) => s.parsing_models, { a, b });
  const going = (status: string) => status === "queued" || status === "running";
  // Ended: a cancelled run's started calls record their results until finished_at is set.
  const ended = (r: RunRecord) => !going(r.status) && r.finished_at !== null;
  const key = JSON.stringify([a.tenant_id, a.run_id, b.run_id, models ?? null, judges ?? null]);
  const cmp = await endedComparison(key, ended(a) && ended(b), async () => {
    const comparer = await compareStoredRuns(c.env.DB, a, b, models, judges);
    return { model_pairs: comparer.modelPairs(), unmatched: comparer.unmatched(), questions: comparer.questionFlips() };
  });
  const all = cmp.questions;
  const after = q.cursor ? decodeCursor(q.cursor, ["question_id"])[0]! : null;
  const start = after === null ? 0 : all.findIndex((x) => x.question_id > after);
  const page = start < 0 ? [] : all.slice(start, start + q.limit);
  const more = start >= 0 && start + q.limit < all.length;
  return {
    a: a.run_id,
    b: b.run_id,
    a_status: a.status,
    b_status: b.status,
    // A run still going is compared on what has landed: its figures will change.
    complete: !going(a.status) && !going(b.status),
    alpha: ALPHA,
    model_pairs: cmp.model_pairs,
    unmatched: cmp.unmatched,
    questions_with_flips: all.length,
    questions: page,
    next_cursor: more ? encodeCursor([page[page.length - 1]!.question_id]) : null,
  };
}

/**
 * The pair of ids `a_<param>` / `b_<param>` names (one alone: the same id on both sides), each
 * checked against its run; undefined when neither was sent. An id a run lacks is a 400 at the
 * field that was sent, listing what the run has.
 */
async function namedPair(
  q: z.output<typeof CompareQuery>,
  param: "model" | "parsing_model",
  what: string,
  specs: { a: () => Promise<RunSpec>; b: () => Promise<RunSpec> },
  list: (s: RunSpec) => { id: string }[],
  runs: { a: RunRecord; b: RunRecord },
): Promise<{ a: string; b: string } | undefined> {
  const sent = { a: q[`a_${param}`], b: q[`b_${param}`] };
  if (sent.a === undefined && sent.b === undefined) return undefined;
  const pair = { a: sent.a ?? sent.b!, b: sent.b ?? sent.a! };
  for (const side of ["a", "b"] as const) {
    const ids = list(await specs[side]()).map((m) => m.id);
    if (ids.includes(pair[side])) continue;
    // One of the two sent alone names both runs' id: report the field that was sent.
    const other = side === "a" ? "b" : "a";
    const field = sent[side] !== undefined ? side : other;
    const advice =
      sent[side] !== undefined
        ? ""
        : ` (${other}_${param} alone names both runs' ${what}; send ${side}_${param} to name run ${side.toUpperCase()}'s)`;
    throw invalidQuery([
      {
        path: `query ${field}_${param}`,
        message: `run ${side.toUpperCase()} (${runs[side].run_id}) has no ${what} ${JSON.stringify(pair[side])}; it has ${ids.map((i) => JSON.stringify(i)).join(", ")}${advice}`,
      },
    ]);
  }
  return pair;
}

function once<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => {
    p ??= f();
    return p;
  };
}
