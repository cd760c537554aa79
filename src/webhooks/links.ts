/**
 * The links webhook events carry. A receiver (a CI job, a chat hook) has only the event, not the
 * URL the run was submitted to, so a link must be absolute to be followed: it is made from the
 * operator's EDGEVAL_PUBLIC_ORIGIN, else from the origin the run (or its schedule) was submitted
 * through, which the runs and schedules rows keep (`api_origin`). Runs from before that column keep
 * the paths their events always had.
 */
import { edgeConfig } from "../config";
import type { Env } from "../env";

/** Where a request's links point: the operator's public origin, else the origin it came in on. */
export function requestOrigin(c: { env: Env; req: { url: string } }): string {
  return edgeConfig(c.env).publicOrigin ?? new URL(c.req.url).origin;
}

/** The origin links of a stored run or schedule use: the operator's, else the one recorded with it (null: paths). */
export function storedOrigin(env: Env, recorded: string | null | undefined): string | null {
  return edgeConfig(env).publicOrigin ?? recorded ?? null;
}

/** `path` on this API, absolute when the origin is known. */
export const apiLink = (origin: string | null, path: string): string => (origin ? `${origin}${path}` : path);

/** A run's links in its events: the API's views, and the dashboard page a person opens. */
export function runLinks(origin: string | null, runId: string): { run: string; summary: string; results: string; dashboard: string } {
  const run = `/v1/runs/${runId}`;
  return {
    run: apiLink(origin, run),
    summary: apiLink(origin, `${run}/summary`),
    results: apiLink(origin, `${run}/results`),
    dashboard: apiLink(origin, `/dashboard/runs/${runId}`),
  };
}
