// `npm start` end to end, as a subprocess: wrangler dev + queue + Durable Object + D1 + R2, with
// the model calls going (a) to the bundled offline judge, (b) through the openai interface and
// (c) through the anthropic interface to a fake LLM server this test owns.
import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { startFakeLlm } from "../fake-llm/server.mjs";

const ROOT = path.resolve(import.meta.dirname, "../..");
const START = path.join(ROOT, "scripts/start.mjs");
const SCRIPT = path.join(ROOT, "examples/basic/fake-script.json");
const RUN_LIMIT_MS = 110_000;

/** Variables that would change which provider start.mjs picks; each case sets its own. */
const PROVIDER_VARS = [
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "EDGEVAL_OPENAI_COMPATIBLE_BASE_URL",
  "EDGEVAL_OPENAI_COMPATIBLE_MODEL",
  "EDGEVAL_ANSWERING_MODEL",
  "EDGEVAL_PARSING_MODEL",
];

function runStart(extraEnv: Record<string, string>, args: string[] = []): Promise<{ code: number | null; out: string; ms: number }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of PROVIDER_VARS) delete env[k];
  Object.assign(env, extraEnv);
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [START, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    // SIGINT lets start.mjs stop its own wrangler and fake before it exits.
    const timer = setTimeout(() => child.kill("SIGINT"), RUN_LIMIT_MS);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out, ms: Date.now() - t0 });
    });
  });
}

type Fake = {
  url: string;
  stats: () => { total: number; by_endpoint: Record<string, number> };
  reset: () => void;
  close: () => Promise<void>;
};

describe("npm start", () => {
  let fake: Fake;
  beforeAll(async () => {
    fake = await startFakeLlm({ port: 0, script: SCRIPT });
  });
  afterAll(async () => {
    await fake?.close();
  });

  it("grades the example with the bundled offline judge and matches every expected verdict", async () => {
    const r = await runStart({});
    expect(r.out).toContain("bundled offline judge");
    // The local queue settings (README, "Local and deployed queue settings"), not wrangler.toml's.
    expect(r.out).toMatch(/job queue: 4 shard\(s\) × batches of 100, JOB_CONCURRENCY 100/);
    expect(r.out).toContain("Verdicts: all 48 match expected.json.");
    // 44 judgements + one repair retry for each of the 2 malformed judge replies (issue 5: the
    // validation error is fed back once before the reply counts as a parsing failure).
    expect(r.out, r.out).toMatch(/Fake LLM: 48 answering calls, 46 judge calls/);
    expect(r.code, r.out).toBe(0);
  });

  it("uses the openai interface with OPENAI_API_KEY and OPENAI_BASE_URL, without printing the key", async () => {
    fake.reset();
    const key = "sk-e2e-openai-secret-4b1d";
    // --verbose prints every wrangler line, which must still not show the key
    const r = await runStart({ OPENAI_API_KEY: key, OPENAI_BASE_URL: `${fake.url}/v1` }, ["--verbose"]);
    expect(r.out).toContain("Provider: OpenAI");
    expect(r.out).not.toContain(key);
    expect(r.code, r.out).toBe(0);
    const s = fake.stats();
    expect(s.by_endpoint["openai.chat"]).toBeGreaterThanOrEqual(92); // 48 answers + 44 parses
    expect(s.by_endpoint["anthropic.messages"]).toBe(0);
  });

  it("uses the anthropic interface with ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL", async () => {
    fake.reset();
    const r = await runStart({ ANTHROPIC_API_KEY: "sk-ant-e2e-secret-77c2", ANTHROPIC_BASE_URL: fake.url });
    expect(r.out).toContain("Provider: Anthropic");
    expect(r.code, r.out).toBe(0);
    const s = fake.stats();
    expect(s.by_endpoint["anthropic.messages"]).toBeGreaterThanOrEqual(92);
    expect(s.by_endpoint["openai.chat"]).toBe(0);
  });
});
