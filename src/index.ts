/** Worker entry: the HTTP API, the queue consumer, and the Durable Object classes. */
import type { Env } from "./env";
import { buildWorkerApp } from "./worker-app";
import { handleQueueBatch } from "./jobs/consumer";
import { sweepRetention } from "./tenants/retention";

export { RunCoordinator } from "./coordinator/coordinator";
export { ProviderLimiter } from "./limiter/provider-limiter";
export { TenantRateLimiter } from "./tenants/rate-limiter";
export { WebhookDispatcher } from "./webhooks/dispatcher";

const app = buildWorkerApp();

export default {
  fetch: app.fetch,
  queue: (batch: MessageBatch<unknown>, env: Env) => handleQueueBatch(batch, env),
  // The retention sweep (src/tenants/retention.ts), on the cron in wrangler.toml.
  scheduled: async (controller: ScheduledController, env: Env, _ctx: ExecutionContext) => void (await sweepRetention(env, controller.scheduledTime)),
} satisfies ExportedHandler<Env>;
