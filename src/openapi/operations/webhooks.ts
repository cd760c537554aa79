/** /v1/webhook-endpoints: a tenant's receivers of signed run events (Standard Webhooks; src/webhooks/README.md). */
import { ListQuery } from "../../schemas/api";
import { ENDPOINT_BODY_LIMIT } from "../../schemas/body-limits";
import {
  DeletedEndpoint,
  DeliveryPage,
  EndpointList,
  EndpointView,
  EndpointWithSecret,
  RetriedDelivery,
  TestEventSent,
} from "../../schemas/webhook-views";
import { CreateEndpointRequest, RotateSecretRequest, TestEventRequest, UpdateEndpointRequest } from "../../schemas/webhooks";
import type { Operation } from "../operation";

const read = { kind: "tenant", scope: "webhooks:read" } as const;
const write = { kind: "tenant", scope: "webhooks:write" } as const;
const endpointId = { id: "The endpoint_id (whe_…)." };

export const WEBHOOK_OPERATIONS: Operation[] = [
  {
    method: "post",
    path: "/v1/webhook-endpoints",
    operationId: "createWebhookEndpoint",
    tag: "webhooks",
    summary: "Register a receiver of run events",
    description:
      "Each run's end (and, opted in, each result.created) is delivered once per endpoint, signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature) with the secret this answer shows once.",
    auth: write,
    body: {
      schema: CreateEndpointRequest,
      maxBytes: ENDPOINT_BODY_LIMIT.bytes,
      example: { url: "https://ci.example.com/edgeval-hook", event_types: ["run.completed", "run.failed"] },
    },
    responses: { 201: { description: "The endpoint and its signing secret (shown once).", schema: EndpointWithSecret } },
    errors: ["endpoint_limit"],
  },
  {
    method: "get",
    path: "/v1/webhook-endpoints",
    operationId: "listWebhookEndpoints",
    tag: "webhooks",
    summary: "The tenant's webhook endpoints",
    auth: read,
    responses: { 200: { description: "Every endpoint.", schema: EndpointList } },
  },
  {
    method: "get",
    path: "/v1/webhook-endpoints/:id",
    operationId: "getWebhookEndpoint",
    tag: "webhooks",
    summary: "One webhook endpoint",
    auth: read,
    pathParams: endpointId,
    responses: { 200: { description: "The endpoint.", schema: EndpointView } },
  },
  {
    method: "patch",
    path: "/v1/webhook-endpoints/:id",
    operationId: "updateWebhookEndpoint",
    tag: "webhooks",
    summary: "Change an endpoint's url, description, event types, scope or state",
    auth: write,
    pathParams: endpointId,
    body: { schema: UpdateEndpointRequest, maxBytes: ENDPOINT_BODY_LIMIT.bytes, example: { enabled: false } },
    responses: { 200: { description: "The endpoint as changed.", schema: EndpointView } },
  },
  {
    method: "delete",
    path: "/v1/webhook-endpoints/:id",
    operationId: "deleteWebhookEndpoint",
    tag: "webhooks",
    summary: "Delete a webhook endpoint",
    auth: write,
    pathParams: endpointId,
    responses: { 200: { description: "Deleted.", schema: DeletedEndpoint } },
  },
  {
    method: "post",
    path: "/v1/webhook-endpoints/:id/rotate-secret",
    operationId: "rotateWebhookSecret",
    tag: "webhooks",
    summary: "Mint a new signing secret",
    description: "The old secret keeps signing beside the new one for overlap_seconds (default 24 h), so receivers can switch over.",
    auth: write,
    pathParams: endpointId,
    body: { schema: RotateSecretRequest, maxBytes: ENDPOINT_BODY_LIMIT.bytes, example: { overlap_seconds: 3600 }, optional: true },
    responses: { 201: { description: "The endpoint and its new secret (shown once).", schema: EndpointWithSecret } },
  },
  {
    method: "post",
    path: "/v1/webhook-endpoints/:id/test",
    operationId: "sendWebhookTestEvent",
    tag: "webhooks",
    summary: "Send a signed test event to the endpoint now",
    description:
      "One `webhook.test` event (`{type, timestamp, data: {endpoint_id, message, links: {deliveries}}}`), signed and logged as every event is, whatever the endpoint's event_types; no run is behind it. The first attempt is made before the answer, which says how the receiver took it (`status_code`, `error`); a failed attempt is retried on the usual schedule. Check a receiver's URL and signature check with it before a run ends.",
    auth: write,
    pathParams: endpointId,
    body: { schema: TestEventRequest, maxBytes: ENDPOINT_BODY_LIMIT.bytes, example: {}, optional: true },
    responses: { 200: { description: "Sent; the first attempt's outcome.", schema: TestEventSent } },
    errors: ["delivery_state"],
  },
  {
    method: "get",
    path: "/v1/webhook-endpoints/:id/deliveries",
    operationId: "listWebhookDeliveries",
    tag: "webhooks",
    summary: "An endpoint's deliveries with every attempt, newest first",
    auth: read,
    pathParams: endpointId,
    query: ListQuery,
    responses: { 200: { description: "One page; follow next_cursor until it is null.", schema: DeliveryPage } },
  },
  {
    method: "post",
    path: "/v1/webhook-endpoints/:id/deliveries/:delivery_id/retry",
    operationId: "retryWebhookDelivery",
    tag: "webhooks",
    summary: "Deliver a delivered or failed event again, now",
    description: "The same event with the same webhook-id, on a fresh schedule.",
    auth: write,
    pathParams: { ...endpointId, delivery_id: "A delivery_id from the deliveries list." },
    responses: { 202: { description: "Scheduled.", schema: RetriedDelivery } },
    errors: ["delivery_state"],
  },
];
