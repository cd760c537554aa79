/** Worker entry: the HTTP API, the queue consumer, and the Durable Object classes. */
import type { Env } from "./env";
import { buildWorkerApp } from "./worker-app";
import { EXPORT_QUEUE, handleExportBatch } from "./exports/consumer";
import { handleQueueBatch } from "./jobs/consumer";
import { onCron } from "./cron";

export { RunCoordinator } from "./coordinator/coordinator";
export { ProviderLimiter } from "./limiter/provider-limiter";
export { TenantRateLimiter } from "./tenants/rate-limiter";
export { WebhookDispatcher } from "./webhooks/dispatcher";

const app = buildWorkerApp();

export default {
  fetch: app.fetch,
  queue: (batch: MessageBatch<unknown>, env: Env) =>
    batch.queue === EXPORT_QUEUE ? handleExportBatch(batch, env) : handleQueueBatch(batch, env),
  scheduled: (controller: ScheduledController, env: Env, _ctx: ExecutionContext) => onCron(controller, env),
} satisfies ExportedHandler<Env>;
