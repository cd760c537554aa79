import path from "node:path";
import type { TestProject } from "vitest/node";
// @ts-expect-error plain-Node module without types
import { startFakeLlm } from "./fake-llm/server.mjs";
// @ts-expect-error plain-Node module without types
import { startWebhookReceiver } from "./webhook-receiver/server.mjs";
// @ts-expect-error plain-Node module without types
import { startCanary } from "./support/canary-server.mjs";
// @ts-expect-error plain-Node module without types
import { startReportSink } from "./reliability/report-sink.mjs";
import { ReliabilityReport } from "./reliability/report";
// @ts-expect-error plain-Node module without types
import { startMcpServer } from "./mcp-server/server.mjs";

declare module "vitest" {
  interface ProvidedContext {
    fakeLlmPort: number;
    webhookReceiverPort: number;
    canaryPort: number;
    canaryIpv6: boolean;
    reportSinkPort: number;
    mcpServerPort: number;
  }
}

/** One fake LLM server for the whole run, scripted per case over its admin API; one SSRF canary. */
export default async function setup(project: TestProject) {
  // Two test files run side by side (vitest.config.ts), so a test's requests share the log that
  // /_admin/requests reads with another file's traffic: room for 5,000, not the default 500.
  const fake = await startFakeLlm({ port: 0, requestLogSize: 5_000 });
  project.provide("fakeLlmPort", fake.port);
  // The counterpart of the webhook tests: verifies deliveries with the standardwebhooks package.
  const receiver = await startWebhookReceiver({ port: 0 });
  project.provide("webhookReceiverPort", receiver.port);
  // A loopback listener production mode must never reach (test/integration/outbound-ssrf.test.ts).
  const canary = await startCanary();
  project.provide("canaryPort", canary.port);
  project.provide("canaryIpv6", canary.ipv6);
  // Reliability reports (test/reliability/README.md) land in .reliability/ at the repository's root.
  const sink = await startReportSink({
    dir: path.join(import.meta.dirname, "..", ".reliability"),
    // npm run reliability runs the soak's lane with --inspect on this port (scripts/reliability.mjs).
    inspectorPort: Number(process.env.RELIABILITY_INSPECTOR_PORT) || null,
    validate: (body: unknown) => {
      const parsed = ReliabilityReport.safeParse(body);
      return parsed.success ? null : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    },
  });
  project.provide("reportSinkPort", sink.port);
  // The answering agent's MCP server (test/mcp-server/server.mjs): two tools, counts per URL tag.
  const mcp = await startMcpServer();
  project.provide("mcpServerPort", mcp.port);
  return async () => {
    await sink.close();
    await mcp.close();
    await fake.close();
    await receiver.close();
    await canary.close();
  };
}
