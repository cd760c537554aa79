/**
 * One delivery attempt: sign afresh (a new webhook-timestamp and signature every time, so a
 * receiver's 5-minute replay window holds on a retry hours later), POST without following
 * redirects, record the outcome, and say when the next attempt is due. Not through guardedFetch
 * (src/outbound): a receiver's 2xx need not be JSON, its body is never read (so no text of an
 * internal listener could come back), and a 3xx is logged as the redirect it is.
 *  - 2xx: delivered.
 *  - 410 Gone: the endpoint is disabled (and the delivery failed); re-enabling it is the tenant's call.
 *  - anything else (3xx included: a redirect is not followed), a network error or a timeout: the
 *    next step of the schedule (schedule.ts), or failed when it is spent.
 */
import type { Env } from "../env";
import { log } from "../log";
import { failDelivery, getDelivery, getEvent, recordAttempt } from "./deliveries-repo";
import { disableEndpoint, getEndpoint, signingSecrets } from "./endpoints-repo";
import { delayBeforeAttempt } from "./schedule";
import { edgeConfig } from "../config";
import { signDelivery, unsealSigningSecrets } from "./signing";
import { outboundUrlIssue } from "../outbound/url-policy";

/** A receiver has this long to answer; Standard Webhooks asks receivers to answer fast. */
const ATTEMPT_TIMEOUT_MS = 15_000;

/** Attempts the delivery if it is due; returns ms until the next attempt, or null when there is none. */
export async function attemptDelivery(env: Env, tenantId: string, deliveryId: string): Promise<number | null> {
  const delivery = await getDelivery(env.DB, tenantId, deliveryId);
  if (!delivery || delivery.status !== "pending") return null;
  const now = new Date();
  const endpoint = await getEndpoint(env.DB, tenantId, delivery.endpoint_id);
  const event = await getEvent(env.DB, tenantId, delivery.event_id);
  if (!endpoint || !event) {
    await failDelivery(env.DB, delivery, "the endpoint was deleted", now.toISOString());
    return null;
  }
  if (!endpoint.enabled) {
    await failDelivery(
      env.DB,
      delivery,
      `the endpoint is disabled${endpoint.disabled_reason ? ` (${endpoint.disabled_reason})` : ""}`,
      now.toISOString(),
    );
    return null;
  }
  const secrets = await unsealSigningSecrets(env.EDGEVAL_SECRETS_KEK, tenantId, endpoint.endpoint_id, signingSecrets(endpoint, now));
  const headers = signDelivery(secrets, event.event_id, now, event.payload);
  let status: number | null = null;
  // Again at every attempt: the policy (src/outbound) may have changed since the URL was registered.
  let error: string | null = outboundUrlIssue(endpoint.url, edgeConfig(env).outbound, "endpoint");
  if (!error) {
    try {
      const res = await fetch(endpoint.url, {
        method: "POST",
        body: event.payload,
        headers: { ...headers, "content-type": "application/json", "user-agent": "edgeval-webhooks" },
        redirect: "manual",
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      status = res.status;
      await res.body?.cancel();
    } catch (err) {
      error = unreachable(endpoint.url, err);
    }
  }
  const ok = status !== null && status >= 200 && status < 300;
  if (!ok && !error) error = status !== null && status >= 300 && status < 400 ? `redirect ${status} not followed` : `HTTP ${status}`;
  const attempt = {
    at: now.toISOString(),
    webhook_timestamp: Number(headers["webhook-timestamp"]),
    status_code: status,
    error: ok ? null : error,
  };
  if (ok) {
    await recordAttempt(env.DB, delivery, attempt, { status: "delivered", next_attempt_at: null });
    return null;
  }
  if (status === 410) {
    await disableEndpoint(env.DB, tenantId, endpoint.endpoint_id, "the receiver answered 410 Gone", now.toISOString());
    await recordAttempt(env.DB, delivery, attempt, { status: "failed", next_attempt_at: null });
    log.info("webhook_endpoint_disabled", { tenant_id: tenantId, endpoint_id: endpoint.endpoint_id });
    return null;
  }
  const delay = delayBeforeAttempt(delivery.schedule_step + 1, edgeConfig(env).webhookRetryScale);
  const next = delay === null ? null : new Date(now.getTime() + delay).toISOString();
  await recordAttempt(env.DB, delivery, attempt, { status: next ? "pending" : "failed", next_attempt_at: next });
  return delay;
}

/**
 * A failed fetch, said so the tenant knows where to look: the runtime's own text ("internal
 * error; reference = …" for a connection refused or a name that does not resolve) names neither.
 */
function unreachable(url: string, err: unknown): string {
  const origin = new URL(url).origin;
  if (err instanceof Error && err.name === "TimeoutError") return `no answer from ${origin} within ${ATTEMPT_TIMEOUT_MS / 1000} s`;
  const cause = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return `could not reach ${origin} (${cause}): check the URL's host and port, and that the receiver is up`;
}
