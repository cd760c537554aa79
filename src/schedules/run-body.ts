/**
 * The POST /v1/runs body a schedule stands for: its stored benchmark, its preset (read when the
 * run starts) and its config. The routes check it with a dry run and the cron tick submits it,
 * both through submitRun (src/http/submit-run.ts), so a scheduled run is any other run.
 */
import type { ScheduleRecord } from "./schedules-repo";

export function scheduledRunBody(
  s: Pick<ScheduleRecord, "benchmark_id" | "preset_id" | "config">,
  extra: { run_name?: string; dry_run?: true },
): Record<string, unknown> {
  return { benchmark_id: s.benchmark_id, ...(s.preset_id ? { preset_id: s.preset_id } : {}), config: s.config, ...extra };
}
