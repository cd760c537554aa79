/**
 * WebhookDispatcher — one Durable Object per delivery, driving its retry schedule with alarms.
 * Why alarms and not a delivery queue: the schedule reaches 10 h between attempts (a queue
 * message's delay is capped at 12 h and its retries are counted by the queue, not by our
 * schedule); an alarm fires at the exact time we chose, survives restarts, is retried by the
 * runtime if the handler throws, and one object per delivery means one attempt at a time for it.
 * The object stores only which delivery it drives; the delivery's state lives in D1 (the log).
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { log } from "../log";
import { attemptDelivery } from "./attempt";

export class WebhookDispatcher extends DurableObject<Env> {
  /** Idempotent: a delivery already scheduled keeps its alarm. `delayMs`: its next attempt is due then (one made elsewhere first). */
  async start(tenantId: string, deliveryId: string, delayMs = 0): Promise<void> {
    await this.ctx.storage.put({ tenant_id: tenantId, delivery_id: deliveryId });
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + delayMs);
  }

  async alarm(): Promise<void> {
    const tenantId = await this.ctx.storage.get<string>("tenant_id");
    const deliveryId = await this.ctx.storage.get<string>("delivery_id");
    if (!tenantId || !deliveryId) return;
    let next: number | null;
    try {
      next = await attemptDelivery(this.env, tenantId, deliveryId);
    } catch (err) {
      // Our own failure (D1, the KEK), not the receiver's: the runtime retries the alarm.
      log.warn("webhook_attempt_error", { tenant_id: tenantId, delivery_id: deliveryId, error: String(err) });
      throw err;
    }
    if (next !== null) await this.ctx.storage.setAlarm(Date.now() + next);
  }
}
