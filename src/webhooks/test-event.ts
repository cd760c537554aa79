/**
 * `POST /v1/webhook-endpoints/:id/test`: one `webhook.test` event to one endpoint, so a tenant can
 * check a receiver (its URL, its signature check) before any run ends. Delivered as every event is
 * (signed, logged, retried on the schedule), whatever the endpoint's event_types, with the first
 * attempt made in the request so its answer says what the receiver did.
 */
import type { Env } from "../env";
import { insertDeliveryStatement, insertEventStatement } from "./deliveries-repo";
import { attemptDelivery } from "./attempt";
import { deliveryIdOf, startDelivery } from "./emit";
import type { EndpointRecord } from "./endpoints-repo";
import { apiLink } from "./links";

/** Not an event type an endpoint subscribes to: sent only when asked for. */
export const TEST_EVENT_TYPE = "webhook.test";

export function testEventBody(at: Date, endpointId: string, origin: string | null): string {
  return JSON.stringify({
    type: TEST_EVENT_TYPE,
    timestamp: at.toISOString(),
    data: {
      endpoint_id: endpointId,
      message: "a test event from edgeval (POST /v1/webhook-endpoints/:id/test); no run is behind it",
      links: { deliveries: apiLink(origin, `/v1/webhook-endpoints/${endpointId}/deliveries`) },
    },
  });
}

/** Writes the event and its delivery, makes the first attempt, and leaves any retry to the delivery's dispatcher. */
export async function sendTestEvent(
  env: Env,
  endpoint: EndpointRecord,
  origin: string | null,
  now = new Date(),
): Promise<{ event_id: string; delivery_id: string }> {
  const eventId = `msg_test_${crypto.randomUUID().replaceAll("-", "")}`;
  const deliveryId = await deliveryIdOf(eventId, endpoint.endpoint_id);
  const at = now.toISOString();
  await env.DB.batch([
    // No run: run_id is empty (the column is NOT NULL); the delivery log shows it as null.
    insertEventStatement(env.DB, {
      tenant_id: endpoint.tenant_id,
      event_id: eventId,
      run_id: "",
      type: TEST_EVENT_TYPE,
      payload: testEventBody(now, endpoint.endpoint_id, origin),
      created_at: at,
    }),
    insertDeliveryStatement(env.DB, {
      tenant_id: endpoint.tenant_id,
      delivery_id: deliveryId,
      event_id: eventId,
      endpoint_id: endpoint.endpoint_id,
      at,
    }),
  ]);
  const retryInMs = await attemptDelivery(env, endpoint.tenant_id, deliveryId);
  if (retryInMs !== null) await startDelivery(env, endpoint.tenant_id, deliveryId, retryInMs);
  return { event_id: eventId, delivery_id: deliveryId };
}
