/**
 * Karenina options edgeval accepts so that Karenina's configs load unchanged, but does not act on
 * (the README's "Accepted but inert" table). Left at Karenina's default they say nothing; set to
 * anything else, the user chose them, so the submit's answer says each is not applied and what
 * does the job here, instead of dropping the choice in silence.
 */
import type { FieldIssue } from "../schemas/field-issue";
import type { VerificationConfig } from "../schemas/verification-config";

const PACING =
  "edgeval runs jobs on Cloudflare Queues and paces each provider key with its shared limiter: cap a model's calls with the run's `limits` ({model_id: {concurrency, rpm, tpm}})";

/** Each inert option: whether it was set away from Karenina's default, and why it changes nothing. */
const INERT: { field: keyof VerificationConfig; chosen: (c: VerificationConfig) => boolean; why: string }[] = [
  { field: "max_concurrent_requests", chosen: (c) => c.max_concurrent_requests !== null, why: PACING },
  { field: "answerer_concurrency_limits", chosen: (c) => c.answerer_concurrency_limits !== null, why: PACING },
  { field: "async_enabled", chosen: (c) => c.async_enabled === false, why: `jobs always run side by side; ${PACING}` },
  {
    field: "batch_timeout_seconds",
    chosen: (c) => c.batch_timeout_seconds !== null,
    why: "there is no batch to time out: each model call is bounded by request_timeout, and a run can be cancelled (POST /v1/runs/:id/cancel)",
  },
  { field: "task_ordering", chosen: (c) => c.task_ordering !== "auto", why: "jobs start in the order the queue delivers them" },
  {
    field: "max_requeue_count",
    chosen: (c) => c.max_requeue_count !== 5,
    why: "jobs share an answer through the run's coordinator, not by requeueing; retries follow retry_policy",
  },
  {
    field: "replay_parse_on_hydration_mismatch",
    chosen: (c) => c.replay_parse_on_hydration_mismatch !== "fall_through",
    why: "replay is not run (replay_store must be null)",
  },
  {
    field: "workspace_copy",
    chosen: (c) => c.workspace_copy === false,
    why: "a question's workspace is read in place from R2; nothing is copied",
  },
  {
    field: "workspace_cleanup",
    chosen: (c) => c.workspace_cleanup === false,
    why: "nothing is copied to a local disk, so nothing is cleaned up",
  },
  {
    field: "workspace_output_exclude_patterns",
    chosen: (c) => c.workspace_output_exclude_patterns.length > 0,
    why: 'workspace output is not collected (only workspace_output_mode "none" is accepted)',
  },
];

export function inertSettingWarnings(config: VerificationConfig): FieldIssue[] {
  return INERT.filter((o) => o.chosen(config)).map((o) => ({
    path: `config.${o.field}`,
    message: `accepted for Karenina compatibility but not applied: ${o.why}`,
  }));
}
