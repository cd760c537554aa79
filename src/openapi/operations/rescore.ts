/** Re-scoring (issue 22, src/rescore/README.md): a child run that reuses a finished run's answers and results. */
import { RescoreRequest, RescoreStarted } from "../../schemas/rescore";
import type { Operation } from "../operation";

export const RESCORE_OPERATIONS: Operation[] = [
  {
    method: "post",
    path: "/v1/runs/:id/rescore",
    operationId: "rescoreRun",
    tag: "runs",
    summary: "Re-score a finished run: new judges, answering models, replicates or rubric traits, without paying for its answers again",
    description:
      "Starts a child run (`lineage.parent_run_id`; the parent lists it in `lineage.children`) holding copies of the parent's results under new result ids plus the new ones. New parsing models judge the parent's stored answers (no answering call); new answering models and replicates make new answering calls; added traits (`rubric`, merged into the global rubric) are evaluated alone on the parent's answers, the template verdicts kept. Model ids and trait names must be new; `replicate_count` is at least the parent's, and the request must add something (the parent's own replicate count alone, or a rubric without traits, is a 400). The run must have finished (409 `run_active`). The run quotas apply as to POST /v1/runs. A run's multi-turn scenarios are not re-scored (each turn depends on the answers before it): the 202's `left_out` names them, with the parent's turn results the child does not copy and what to do instead; it is empty when the child carries everything. A parent that recorded fewer results than it planned (cancelled, out of budget, jobs lost) has tuples with nothing to reuse: the child answers and grades them afresh, answering calls included, and `graded_afresh` says how many (null when none).",
    auth: { kind: "tenant", scope: "runs:write" },
    pathParams: { id: "The run_id of the finished run to re-score." },
    body: {
      schema: RescoreRequest,
      maxBytes: 1_000_000,
      example: {
        parsing_models: [{ id: "judge-2", interface: "openai", model_name: "gpt-4.1-mini" }],
        rubric: { llm_traits: [{ name: "concise", description: "Is the answer concise?", kind: "boolean", higher_is_better: true }] },
      },
    },
    responses: {
      202: { description: "The child run, queued, and what of the parent it leaves out (`left_out`).", schema: RescoreStarted },
    },
    errors: ["run_active", "quota_exceeded"],
  },
];
