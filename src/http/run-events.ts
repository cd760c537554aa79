/**
 * GET /v1/runs/:id/events: the run's Server-Sent Events (src/coordinator/run-events.ts), streamed
 * from its coordinator once the tenant-checked runs row names it, as GET /v1/runs/:id does.
 */
import type { Context } from "hono";
import type { AppEnv } from "./auth";
import type { RunRecord } from "../storage/runs-repo";
import { parseLastEventId } from "../coordinator/run-events";
import { invalidQuery } from "./errors";

export async function runEvents(c: Context<AppEnv>, run: RunRecord): Promise<Response> {
  const lastEventId = c.req.header("last-event-id");
  if (parseLastEventId(lastEventId) === null) {
    throw invalidQuery([
      {
        path: "header Last-Event-ID",
        message: "not an event id this stream sent (a result's sequence number); reconnect without it to start over",
      },
    ]);
  }
  const stub = c.env.RUNS.getByName(run.coordinator_name ?? run.run_id);
  const res = await stub.fetch("https://coordinator/events", { headers: lastEventId ? { "last-event-id": lastEventId } : {} });
  return new Response(res.body, {
    status: res.status,
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", "x-accel-buffering": "no" },
  });
}
