/** Results out (issue 21): exports, run comparison, scheduled runs. Grouped summaries and result filters are on runs.ts's routes. */
import { CompareQuery, CreateExportRequest, ExportQuery, ListQuery } from "../../schemas/api";
import { CreateScheduleRequest, UpdateScheduleRequest } from "../../schemas/schedules";
import {
  DeletedSchedule,
  ExportFile,
  ExportList,
  ExportView,
  KareninaResultsExport,
  RunComparison,
  ScheduleDetail,
  ScheduleList,
  ScheduleView,
} from "../../schemas/results-out-views";
import type { Operation } from "../operation";

const runId = { id: "The run_id POST /v1/runs answered." };
const exportId = { ...runId, export_id: "The export_id POST …/exports answered." };
const scheduleId = { id: "The schedule_id POST /v1/schedules answered." };
const read = { kind: "tenant", scope: "runs:read" } as const;
const write = { kind: "tenant", scope: "runs:write" } as const;
const SMALL_BODY = 16_000;
const SCHEDULE_BODY = 4_000_000;

export const RESULTS_OUT_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/v1/runs/compare",
    operationId: "compareRuns",
    tag: "runs",
    summary: "Run B against run A, result by result, with McNemar's exact test per model pair",
    description:
      "Results pair on question, answering model id, parsing model id and replicate (`a_model`/`b_model`: two answering model ids pair instead; `a_parsing_model`/`b_parsing_model`: two judges, e.g. a re-scored child's new judge against its parent's, the pairs and flips then naming A's as `a_parsing_model`). Per model pair: pass rates, delta B − A, flips each way, McNemar's exact two-sided p and `significant` (p < alpha = 0.05). An error or no_verdict on either side is excluded, never a flip. Questions with flips are paged. `a_status` / `b_status` are the runs' statuses and `complete` is false while either is queued or running: the figures then cover the results recorded so far and will change.",
    auth: read,
    query: CompareQuery,
    responses: { 200: { description: "The comparison.", schema: RunComparison } },
  },
  {
    method: "get",
    path: "/v1/runs/:id/export",
    operationId: "streamExport",
    tag: "runs",
    summary: "The run's results as Karenina's CSV or NDJSON, streamed",
    description:
      "`format=csv`: Karenina's verification-results CSV, a header and one row per result; `format=ndjson`: one result per line (without trace messages). The result filters of GET …/results apply. `format=karenina` carries every trace: build it with POST …/exports.",
    auth: read,
    pathParams: runId,
    query: ExportQuery,
    responses: {
      200: {
        description: "The file, streamed.",
        schema: ExportFile,
        contentType: "text/csv",
        alternatives: [{ contentType: "application/x-ndjson", schema: ExportFile }],
      },
    },
  },
  {
    method: "post",
    path: "/v1/runs/:id/exports",
    operationId: "createExport",
    tag: "runs",
    summary: "Build an export (Karenina's results export v2.2, CSV or NDJSON) with every result's trace",
    description:
      "Built into R2 by the export queue, 500 results a step; poll status_url and download when `ready`. The run must have finished (409 `run_active`: its results are still landing); GET …/export streams CSV or NDJSON of what is recorded so far.",
    auth: write,
    pathParams: runId,
    body: { schema: CreateExportRequest, maxBytes: SMALL_BODY, example: { format: "karenina", answering_model: "alpha" } },
    responses: { 202: { description: "Building.", schema: ExportView } },
    errors: ["run_active"],
  },
  {
    method: "get",
    path: "/v1/runs/:id/exports",
    operationId: "listExports",
    tag: "runs",
    summary: "The run's exports, newest first",
    description:
      "Every export POST …/exports made of this run (building, ready or failed), as GET …/exports/:export_id shows each: how to find an export whose id was lost. Paged by `limit` and `cursor`; follow `next_cursor` until it is null.",
    auth: read,
    pathParams: runId,
    query: ListQuery,
    responses: { 200: { description: "One page of the run's exports.", schema: ExportList } },
  },
  {
    method: "get",
    path: "/v1/runs/:id/exports/:export_id",
    operationId: "getExport",
    tag: "runs",
    summary: "An export's progress",
    auth: read,
    pathParams: exportId,
    responses: { 200: { description: "The export.", schema: ExportView } },
  },
  {
    method: "get",
    path: "/v1/runs/:id/exports/:export_id/download",
    operationId: "downloadExport",
    tag: "runs",
    summary: "A finished export, streamed",
    auth: read,
    pathParams: exportId,
    responses: {
      200: {
        description: "The file: Karenina's results export v2.2 (application/json), CSV or NDJSON, as the export's format.",
        schema: KareninaResultsExport,
        alternatives: [
          { contentType: "text/csv", schema: ExportFile },
          { contentType: "application/x-ndjson", schema: ExportFile },
        ],
      },
    },
    errors: ["export_not_ready"],
  },
  {
    method: "post",
    path: "/v1/schedules",
    operationId: "createSchedule",
    tag: "schedules",
    summary: "Run a stored benchmark with a preset on a cron (UTC)",
    description:
      "`preset_id` names a stored preset (read when each run starts) and `config` overrides its top-level keys, as in POST /v1/runs; without `preset_id`, `config` is the whole VerificationConfig. The run body is checked as a POST /v1/runs dry run would check it. The Cron Trigger starts at most one run per schedule per minute. Each ended run is compared with the schedule's previous one; a model pair dropping with McNemar p < 0.05 sends `run.regression` to the tenant's webhook endpoints. A run the tick cannot submit (a quota, a deleted preset) is skipped with the reason in GET /v1/schedules/:id.",
    auth: write,
    body: { schema: CreateScheduleRequest, maxBytes: SCHEDULE_BODY },
    responses: { 201: { description: "Created.", schema: ScheduleView } },
  },
  {
    method: "get",
    path: "/v1/schedules",
    operationId: "listSchedules",
    tag: "schedules",
    summary: "The tenant's schedules, newest first",
    auth: read,
    query: ListQuery,
    responses: { 200: { description: "One page; follow next_cursor until it is null.", schema: ScheduleList } },
  },
  {
    method: "get",
    path: "/v1/schedules/:id",
    operationId: "getSchedule",
    tag: "schedules",
    summary: "A schedule and its 20 latest runs with their comparisons",
    auth: read,
    pathParams: scheduleId,
    responses: { 200: { description: "The schedule.", schema: ScheduleDetail } },
  },
  {
    method: "patch",
    path: "/v1/schedules/:id",
    operationId: "updateSchedule",
    tag: "schedules",
    summary: "Change a schedule's name, cron, preset or enabled flag",
    auth: write,
    pathParams: scheduleId,
    body: { schema: UpdateScheduleRequest, maxBytes: SCHEDULE_BODY },
    responses: { 200: { description: "The schedule.", schema: ScheduleView } },
  },
  {
    method: "delete",
    path: "/v1/schedules/:id",
    operationId: "deleteSchedule",
    tag: "schedules",
    summary: "Delete a schedule (its runs stay)",
    auth: write,
    pathParams: scheduleId,
    responses: { 200: { description: "Deleted.", schema: DeletedSchedule } },
  },
];
