import type { TestProject } from "vitest/node";
// @ts-expect-error plain-Node module without types
import { startFakeLlm } from "./fake-llm/server.mjs";

declare module "vitest" {
  interface ProvidedContext {
    fakeLlmPort: number;
  }
}

/** One fake LLM server for the whole run; tests script it per case over its admin API. */
export default async function setup(project: TestProject) {
  const fake = await startFakeLlm({ port: 0 });
  project.provide("fakeLlmPort", fake.port);
  return () => fake.close();
}
