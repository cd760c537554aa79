/**
 * The run page's word on how a run ended, under its status: a run that ended otherwise than `completed`
 * says why in words and what to do (the CLI's gates say the same: cli/summary.ts ENDINGS), and a run
 * with errored results links them, since "failed" alone sends the user hunting through every result
 * for the one that says "could not connect" or "no key". A run still going, or completed without
 * errors, shows nothing.
 */
import type { RunStatusView } from "../schemas/run-views";
import { DASHBOARD } from "./guard";

type Ended = Exclude<RunStatusView["status"], "queued" | "running" | "completed">;

const ENDINGS: Record<Ended, string> = {
  cancelled: "it was cancelled before every job ran; the results it recorded are kept. A re-score of it answers and grades the missing ones afresh.",
  budget_exceeded: "its budget was spent before every job ran; the results it recorded are kept. Submit it again with a larger budget_usd to grade the rest.",
  failed: "not one result has a verdict: every job errored or was dead-lettered. The errored results say why (often a model that could not be reached, or a missing key).",
  partial: "some jobs were dead-lettered (they kept failing) and left no result; the others are graded.",
};

export function RunEnding(props: { view: RunStatusView }) {
  const v = props.view;
  const why = v.status in ENDINGS ? ENDINGS[v.status as Ended] : null;
  // Over the pairs the view embeds (the first 100): all of them unless summary_next_url says more.
  const errored = v.summary.reduce((n, p) => n + p.errored, 0);
  const more = v.summary_total > v.summary.length;
  if (!why && errored === 0) return null;
  return (
    <p id="run-ending">
      {why && <>This run ended {v.status}: {why} </>}
      {errored > 0 && (
        <a href={`${DASHBOARD}/runs/${v.run_id}/results?verdict=error`}>
          {more ? "At least " : ""}
          {errored} {errored === 1 ? "result" : "results"} errored (a judge or model call failed): see why
        </a>
      )}
    </p>
  );
}
