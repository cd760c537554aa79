/**
 * Result filters from a query string (schemas/api.ts ResultFilterQuery), or from a body that takes
 * the same fields (POST /v1/runs/:id/exports), to the D1 filter, checked
 * against the run: a model or question id the run does not have is a 400 naming the parameter and
 * listing what the run has, so a typo never reads as "no results".
 */
import type { ResultsQuery } from "../schemas/api";
import { FAILURE_GROUP } from "../schemas/result";
import type { RunSpec } from "../storage/run-spec";
import type { ResultFilter } from "../storage/results-repo";
import { invalidBody, invalidQuery } from "./errors";

type FilterQuery = Pick<ResultsQuery, "answering_model" | "parsing_model" | "question_id" | "verdict" | "failure_group">;

/** At most this many of the run's ids are listed in the message. */
const LISTED = 20;

/** Where the filters came from: an unknown id is reported at `query <name>` or at the body's field. */
type FilterSource = "query" | "body";

function known(from: FilterSource, param: keyof FilterQuery, value: string | undefined, ids: readonly string[], what: string): void {
  if (value === undefined || ids.includes(value)) return;
  const shown = ids
    .slice(0, LISTED)
    .map((i) => JSON.stringify(i))
    .join(", ");
  const more = ids.length > LISTED ? `, … (${ids.length} in all)` : "";
  const message = `this run has no ${what} ${JSON.stringify(value)}; it has ${shown}${more}`;
  throw from === "query" ? invalidQuery([{ path: `query ${param}`, message }]) : invalidBody([{ path: param, message }]);
}

/** `spec` is read only when an id is to be checked (an unfiltered page reads no spec). */
export async function resultFilter(q: FilterQuery, spec: () => Promise<RunSpec>, from: FilterSource = "query"): Promise<ResultFilter> {
  if (q.answering_model ?? q.parsing_model ?? q.question_id) {
    const s = await spec();
    known(
      from,
      "answering_model",
      q.answering_model,
      s.answering_models.map((m) => m.id),
      "answering model",
    );
    known(
      from,
      "parsing_model",
      q.parsing_model,
      s.parsing_models.map((m) => m.id),
      "parsing model",
    );
    known(
      from,
      "question_id",
      q.question_id,
      s.questions.map((x) => x.id),
      "question",
    );
  }
  return {
    answering_model: q.answering_model,
    parsing_model: q.parsing_model,
    question_id: q.question_id,
    verdict: q.verdict,
    failure_categories: q.failure_group
      ? Object.entries(FAILURE_GROUP)
          .filter(([, g]) => g === q.failure_group)
          .map(([c]) => c)
      : undefined,
  };
}
