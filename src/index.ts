import { Hono } from "hono";
import type { Env } from "./env";
export { RunCoordinator } from "./run/coordinator";

const app = new Hono<{ Bindings: Env }>();
app.get("/health", (c) => c.json({ ok: true }));

export default {
  fetch: app.fetch,
  async queue(batch: MessageBatch<unknown>, _env: Env) {
    for (const m of batch.messages) m.ack();
  },
} satisfies ExportedHandler<Env>;
