/** Worker entry: the HTTP API, the queue consumer, and the Durable Object classes. */
import type { Env } from "./env";
import { buildApp } from "./http/app";
import { handleQueueBatch } from "./run/consumer";

export { RunCoordinator } from "./run/coordinator";
export { ProviderLimiter } from "./run/provider-limiter";
export { TenantRateLimiter } from "./tenants/rate-limiter";

const app = buildApp();

export default {
  fetch: app.fetch,
  queue: (batch: MessageBatch<unknown>, env: Env) => handleQueueBatch(batch, env),
} satisfies ExportedHandler<Env>;
