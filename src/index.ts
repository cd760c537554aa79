/** Worker entry: the HTTP API, the queue consumer, and the Durable Object classes. */
import type { Env } from "./env";
import { buildApp } from "./http/app";
import { handleQueueBatch } from "./jobs/consumer";

export { RunCoordinator } from "./coordinator/coordinator";
export { ProviderLimiter } from "./limiter/provider-limiter";
export { TenantRateLimiter } from "./tenants/rate-limiter";

const app = buildApp();

export default {
  fetch: app.fetch,
  queue: (batch: MessageBatch<unknown>, env: Env) => handleQueueBatch(batch, env),
} satisfies ExportedHandler<Env>;
