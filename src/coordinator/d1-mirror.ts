/** D1's runs row mirrors the run's status for listings; the coordinator stays the source of truth. */
import type { Env } from "../env";
import { type RunStatus, setRunStatus } from "../storage/runs-repo";
import type { RunMeta } from "./run-meta";

export async function mirrorStatus(env: Env, meta: RunMeta, status: RunStatus, finishedAt: string | null): Promise<void> {
  await setRunStatus(env.DB, meta.tenantId(), meta.runId()!, status, finishedAt);
}
