import type { TestProject } from "vitest/node";
// @ts-expect-error plain-Node module without types
import { startFakeLlm } from "./fake-llm/server.mjs";
// @ts-expect-error plain-Node module without types
import { startWebhookReceiver } from "./webhook-receiver/server.mjs";

declare module "vitest" {
  interface ProvidedContext {
    fakeLlmPort: number;
    webhookReceiverPort: number;
  }
}

/** One fake LLM server for the whole run; tests script it per case over its admin API. */
export default async function setup(project: TestProject) {
  const fake = await startFakeLlm({ port: 0 });
  project.provide("fakeLlmPort", fake.port);
  // The counterpart of the webhook tests: verifies deliveries with the standardwebhooks package.
  const receiver = await startWebhookReceiver({ port: 0 });
  project.provide("webhookReceiverPort", receiver.port);
  return async () => {
    await fake.close();
    await receiver.close();
  };
}
