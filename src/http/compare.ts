/**
 * GET /v1/runs/compare?a=RUN&b=RUN[&a_model=ID&b_model=ID][&limit=&cursor=] (src/compare/README.md):
 * per model pair the pass-rate delta with McNemar's exact p, and per question the verdicts that
 * flipped (paged by question). Mounted before /v1/runs/:id, which would take "compare" for an id.
 */
import { type Context, Hono } from "hono";
import type { z } from "zod";
import { ALPHA } from "../compare/compare-runs";
import { compareStoredRuns } from "../compare/compare-stored";
import { CompareQuery } from "../schemas/api";
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
  let models: { a: string; b: string } | undefined;
  if (q.a_model !== undefined || q.b_model !== undefined) {
    models = { a: q.a_model ?? q.b_model!, b: q.b_model ?? q.a_model! };
    for (const [side, run, id] of [
      ["a", a, models.a],
      ["b", b, models.b],
    ] as const) {
      const ids = (await requireSpec(c.env.BLOBS, run)).answering_models.map((m) => m.id);
      if (!ids.includes(id)) {
        // One of the two sent alone names both runs' model: report the field that was sent.
        const other = side === "a" ? "b" : "a";
        const sent = q[`${side}_model`] !== undefined;
        const advice = sent ? "" : ` (${other}_model alone names both runs' model; send ${side}_model to name run ${side.toUpperCase()}'s)`;
        throw invalidQuery([
          {
            path: `query ${sent ? side : other}_model`,
            message: `run ${side.toUpperCase()} (${run.run_id}) has no answering model ${JSON.stringify(id)}; it has ${ids.map((i) => JSON.stringify(i)).join(", ")}${advice}`,
          },
        ]);
      }
    }
  }
  const comparer = await compareStoredRuns(c.env.DB, a, b, models);
  const all = comparer.questionFlips();
  const after = q.cursor ? decodeCursor(q.cursor, ["question_id"])[0]! : null;
  const start = after === null ? 0 : all.findIndex((x) => x.question_id > after);
  const page = start < 0 ? [] : all.slice(start, start + q.limit);
  const more = start >= 0 && start + q.limit < all.length;
  const going = (status: string) => status === "queued" || status === "running";
  return {
    a: a.run_id,
    b: b.run_id,
    a_status: a.status,
    b_status: b.status,
    // A run still going is compared on what has landed: its figures will change.
    complete: !going(a.status) && !going(b.status),
    alpha: ALPHA,
    model_pairs: comparer.modelPairs(),
    unmatched: comparer.unmatched(),
    questions_with_flips: all.length,
    questions: page,
    next_cursor: more ? encodeCursor([page[page.length - 1]!.question_id]) : null,
  };
}
