/** /v1/runs: submit, list, status, events, cancel, summary pages, results, delete. */
import { ResultsQuery, RunListQuery, RunSubmission, SummaryQuery } from "../../schemas/api";
import { SummaryResponse } from "../../schemas/results-out-views";
import { DeletedRun, DryRunEstimate, ResultPage, RunEventStream, RunList, RunStatus, SubmittedRun } from "../../schemas/run-views";
import { VerificationResult } from "../../schemas/result";
import { RunEvent } from "../../schemas/run-events";
import { RUN_BODY_LIMIT } from "../../schemas/body-limits";
import { EXAMPLE_RUN_REQUEST, EXAMPLE_RUN_STATUS } from "../examples";
import type { Operation } from "../operation";

const runId = { id: "The run_id POST /v1/runs answered." };
const read = { kind: "tenant", scope: "runs:read" } as const;

export const RUN_OPERATIONS: Operation[] = [
  {
    method: "post",
    path: "/v1/runs",
    operationId: "createRun",
    tag: "runs",
    summary: "Submit a run",
    description:
      "A benchmark (inline, or `benchmark_id` naming a stored one) and a Karenina VerificationConfig — or `preset_id` naming a stored preset (POST /v1/presets), with `config` then overriding the preset's top-level keys. Every question × answering model × replicate becomes a queued job; poll the status_url (or watch its events) until the status is terminal. `dry_run: true` answers 200 with a cost estimate instead, writing nothing and calling no model. `budget_usd` caps spend; `prices` override the shipped price table; `cache` serves repeated model calls from R2.",
    auth: { kind: "tenant", scope: "runs:write" },
    headers: [
      {
        name: "Idempotency-Key",
        description:
          "1-255 characters. The same key with the same body (compared canonicalised per RFC 8785) returns the same run_id (a 409 idempotency_in_progress, to retry, while the first request's run is not started yet); with another body it is a 409 idempotency_conflict.",
      },
    ],
    body: { schema: RunSubmission, maxBytes: RUN_BODY_LIMIT.bytes, example: EXAMPLE_RUN_REQUEST },
    responses: {
      202: {
        description: "Accepted: the run is queued.",
        schema: SubmittedRun,
        example: {
          run_id: "0b7f3c1e-5d2a-4c8e-9f10-2a3b4c5d6e7f",
          status_url: "/v1/runs/0b7f3c1e-5d2a-4c8e-9f10-2a3b4c5d6e7f",
          warnings: [
            {
              path: "config.max_concurrent_requests",
              message:
                "accepted for Karenina compatibility but not applied: edgeval runs jobs on Cloudflare Queues and paces each provider key with its shared limiter: cap a model's calls with the run's `limits` ({model_id: {concurrency, rpm, tpm}})",
            },
          ],
        },
      },
      200: { description: "A dry run's estimate (`dry_run: true`).", schema: DryRunEstimate },
    },
    errors: ["idempotency_conflict", "idempotency_in_progress", "quota_exceeded"],
  },
  {
    method: "get",
    path: "/v1/runs",
    operationId: "listRuns",
    tag: "runs",
    summary: "List runs, newest first",
    description:
      "`status` keeps runs in any of the statuses given, separated by commas (`status=queued,running`: the runs still going); `benchmark_name` keeps the runs of that benchmark (its `name`, as the runs list shows it). A cursor is followed with the same filters.",
    auth: read,
    query: RunListQuery,
    responses: { 200: { description: "One page; follow next_cursor until it is null.", schema: RunList } },
  },
  {
    method: "get",
    path: "/v1/runs/:id",
    operationId: "getRun",
    tag: "runs",
    summary: "A run's status, progress, per-pair summary, usage and manifest",
    description:
      "`status` is queued or running, then the first that applies of: cancelled, budget_exceeded, failed (no result with a pass, fail or no_verdict verdict), partial (some jobs dead-lettered), completed. `summary` embeds at most 100 (answering, parsing) pairs; `summary_next_url` pages through the rest. `pass_rate` = passed / (passed + failed): a judge failure (errored) is never held against the answer.",
    auth: read,
    pathParams: runId,
    responses: { 200: { description: "The run.", schema: RunStatus, example: EXAMPLE_RUN_STATUS } },
  },
  {
    method: "post",
    path: "/v1/runs/:id/cancel",
    operationId: "cancelRun",
    tag: "runs",
    summary: "Stop a run: no model call of it starts later than 1 s after this returns",
    description:
      "Calls in flight finish and are recorded; jobs not started are skipped; the run ends `cancelled` and its webhooks fire once. A second cancel answers the same; a run that has already ended is a 409 `run_finished` with its `status`.",
    auth: { kind: "tenant", scope: "runs:write" },
    pathParams: runId,
    responses: { 200: { description: "The run, as GET /v1/runs/:id shows it.", schema: RunStatus } },
    errors: ["run_finished"],
  },
  {
    method: "get",
    path: "/v1/runs/:id/events",
    operationId: "watchRun",
    tag: "runs",
    summary: "The run's live events, as Server-Sent Events",
    description:
      "`result` {result_id, question_id, answering_model, parsing_model, verdict} per recorded result, its `id` a sequence number; `progress` {done, total, cost_usd, eta_s} on connect, at most once a second while results arrive, and at the end; `status` {status} on connect and on change; last `done` {status, finished_at}, then the stream closes. Each frame's shape is RunEvent (`x-item-schema`). `: heartbeat` comments every 15 s. A watcher that stops reading is cut off once 1 MiB is unread (it reconnects with Last-Event-ID). Reconnect with Last-Event-ID to get every result after that one: each result once across a watcher's connections. Any number of watchers.",
    auth: read,
    pathParams: runId,
    headers: [
      {
        name: "Last-Event-ID",
        description: "The id of the last `result` event received; the stream resumes after it (400 if this stream never sent it).",
      },
    ],
    responses: {
      200: { description: "The event stream.", schema: RunEventStream, itemSchema: RunEvent, contentType: "text/event-stream" },
    },
    errors: ["invalid_query"],
  },
  {
    method: "get",
    path: "/v1/runs/:id/summary",
    operationId: "getRunSummary",
    tag: "runs",
    summary: "Every (answering, parsing) pair's summary, or results grouped with pass@k and pass^k, paged",
    description:
      "Without `group_by`: the pairs, in the order GET /v1/runs/:id embeds them. With `group_by` (pair, question, replicate, answering_model, parsing_model, failure_category, trait): counts, pass rate, tokens, cost, and pass@k = 1 − C(n−c,k)/C(n,k), pass^k = C(c,k)/C(n,k) for k = 1..replicate_count, averaged over the group's (question, answering, parsing) items with n ≥ k graded results (errors are not tries).",
    auth: read,
    pathParams: runId,
    query: SummaryQuery,
    responses: { 200: { description: "One page of pairs, or of groups with group_by.", schema: SummaryResponse } },
  },
  {
    method: "get",
    path: "/v1/runs/:id/results",
    operationId: "listResults",
    tag: "runs",
    summary: "A run's results (Karenina's VerificationResult), paged in result_id order",
    description:
      "Listed results leave out `template.trace_messages`; GET …/results/:result_id has them. Filters, AND-ed: answering_model, parsing_model, question_id (ids the run has: another is a 400 naming the parameter), verdict, failure_group.",
    auth: read,
    pathParams: runId,
    query: ResultsQuery,
    responses: { 200: { description: "One page; follow next_cursor until it is null.", schema: ResultPage } },
  },
  {
    method: "get",
    path: "/v1/runs/:id/results/:result_id",
    operationId: "getResult",
    tag: "runs",
    summary: "One result in full, trace included",
    auth: read,
    pathParams: { ...runId, result_id: "A result's metadata.result_id." },
    responses: { 200: { description: "The result as stored.", schema: VerificationResult } },
  },
  {
    method: "delete",
    path: "/v1/runs/:id",
    operationId: "deleteRun",
    tag: "runs",
    summary: "Delete a finished run and everything it left",
    description:
      "Its D1 rows, R2 objects (spec, checkpoints, results, workspaces), the cache entries it wrote and its coordinator's storage. A run still queued or running, or cancelled with calls it had started still finishing (until `finished_at` is set), is a 409 `run_active`. The row goes last: a deletion that fails part-way (a 500) leaves the run answering every read with 410 `run_deleting`, and repeating the DELETE finishes it from where it stopped (one `run.deleted` audit entry; the month's usage keeps the run's spend).",
    auth: { kind: "tenant", scope: "runs:write" },
    pathParams: runId,
    responses: { 200: { description: "Deleted.", schema: DeletedRun } },
    errors: ["run_active"],
  },
];
