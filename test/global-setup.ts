import type { TestProject } from "vitest/node";
// @ts-expect-error plain-Node module without types
import { startFakeLlm } from "./fake-llm/server.mjs";
// @ts-expect-error plain-Node module without types
import { startWebhookReceiver } from "./webhook-receiver/server.mjs";
// @ts-expect-error plain-Node module without types
import { startCanary } from "./support/canary-server.mjs";

declare module "vitest" {
  interface ProvidedContext {
    fakeLlmPort: number;
    webhookReceiverPort: number;
    canaryPort: number;
    canaryIpv6: boolean;
  }
}

/** One fake LLM server for the whole run, scripted per case over its admin API; one SSRF canary. */
export default async function setup(project: TestProject) {
  const fake = await startFakeLlm({ port: 0 });
  project.provide("fakeLlmPort", fake.port);
  // The counterpart of the webhook tests: verifies deliveries with the standardwebhooks package.
  const receiver = await startWebhookReceiver({ port: 0 });
  project.provide("webhookReceiverPort", receiver.port);
  // A loopback listener production mode must never reach (test/integration/outbound-ssrf.test.ts).
  const canary = await startCanary();
  project.provide("canaryPort", canary.port);
  project.provide("canaryIpv6", canary.ipv6);
  return async () => {
    await fake.close();
    await receiver.close();
    await canary.close();
  };
}
