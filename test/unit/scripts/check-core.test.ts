// scripts/check-core.mjs run as a subprocess against small fixture trees, so the test covers the
// CLI contract (exit code, file:line output) and not only the scanner.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = path.resolve(import.meta.dirname, "../../../scripts/check-core.mjs");
const roots: string[] = [];

/** Writes a fixture tree { "src/pipeline/a.ts": "..." } into a fresh temp dir. */
function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "check-core-"));
  roots.push(root);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

function run(root: string) {
  const r = spawnSync(process.execPath, [SCRIPT, root], { encoding: "utf8" });
  return { code: r.status, out: r.stdout + r.stderr };
}

const CLEAN: Record<string, string> = {
  "src/pipeline/orchestrator.ts": [
    'import { z } from "zod";',
    'import type { ModelPort } from "../llm/port";',
    'import { isRetryable } from "../llm/port.ts";',
    'import { score } from "../templates/score.js";',
    'import type { Env } from "../env";',
    'import { type RunCoordinator } from "../run/coordinator";',
    '// a comment may mention import OpenAI from "openai" without harm',
    '/* and so may a block: import { Hono } from "hono" */',
    'const url = "http://example.com/wasm";',
    "export const run = (p: ModelPort) => [z, isRetryable, score, url, p];",
  ].join("\n"),
  "src/templates/score.ts": 'export { helper } from "./helpers/index.js";\nexport const score = 1;',
  "src/templates/helpers/index.ts": "export const helper = 2;",
  "src/llm/port.ts": 'import type { z } from "zod";\nexport const isRetryable = () => true;',
  "src/env.ts": 'import type { RunCoordinator } from "./run/coordinator";\nexport type Env = { r?: RunCoordinator };',
  "src/run/coordinator.ts": 'import { DurableObject } from "cloudflare:workers";\nexport class RunCoordinator extends DurableObject {}',
  "src/llm/openai.ts": 'import OpenAI from "openai";\nexport default OpenAI;',
  "src/index.ts": 'import { Hono } from "hono";\nexport default new Hono();',
};

afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

describe("check:core", () => {
  it("passes a clean tree whose edges import platform code the core never reaches at run time", () => {
    const r = run(tree(CLEAN));
    expect(r.out).toContain("check:core: ok");
    expect(r.code).toBe(0);
  });

  it.each([
    ["cloudflare:*", 'import { DurableObject } from "cloudflare:workers";', "cloudflare:workers"],
    ["the openai SDK", 'import OpenAI from "openai";', "openai"],
    ["an openai subpath", 'import { APIError } from "openai/error";', "openai/error"],
    ["the Anthropic SDK", 'import Anthropic from "@anthropic-ai/sdk";', "@anthropic-ai/sdk"],
    ["hono", 'import { Hono } from "hono";', "hono"],
    ["hono/*", 'import { HTTPException } from "hono/http-exception";', "hono/http-exception"],
    ["a .wasm file", 'import wasm from "./engine.wasm";', "./engine.wasm"],
    ["a */wasm specifier", 'import wasm from "@jitl/quickjs-wasmfile-release-sync/wasm";', "@jitl/quickjs-wasmfile-release-sync/wasm"],
    ["a QuickJS wasm variant", 'import variant from "@jitl/quickjs-wasmfile-release-sync";', "@jitl/quickjs-wasmfile-release-sync"],
    ["the quickjs-emscripten meta package", 'import { getQuickJS } from "quickjs-emscripten";', "quickjs-emscripten"],
    ["a side-effect import", 'import "cloudflare:sockets";', "cloudflare:sockets"],
    ["a dynamic import", 'export const load = () => import("openai");', "openai"],
    ["a multi-line named import", 'import {\n  Hono,\n  type Context,\n} from "hono";', "hono"],
    ["a re-export", 'export { Hono } from "hono";', "hono"],
  ])("fails on %s imported directly", (_kind, line, spec) => {
    const root = tree({ ...CLEAN, "src/judges/pool.ts": `// header\n${line}\nexport const x = 1;\n` });
    const r = run(root);
    expect(r.code).toBe(1);
    // the offending specifier sits on the last line of the snippet, after the one-line header
    expect(r.out).toContain(`src/judges/pool.ts:${1 + line.split("\n").length}: import "${spec}"`);
  });

  it.each([
    ["src/run", 'import { RunCoordinator } from "../run/coordinator";', "src/run/coordinator.ts"],
    ["src/http", 'import { app } from "../http/app.js";', "src/http/app.ts"],
    ["src/submit", 'import { planRun } from "../submit/plan";', "src/submit/plan.ts"],
    ["src/jobs", 'import { runJob } from "../jobs/job-runner";', "src/jobs/job-runner.ts"],
    ["src/coordinator", 'import { summarize } from "../coordinator/progress";', "src/coordinator/progress.ts"],
    ["src/limiter", 'import { leasePool } from "../limiter/lease-pool";', "src/limiter/lease-pool.ts"],
    ["src/adapters", 'import { r2Workspace } from "../adapters/workspace";', "src/adapters/workspace.ts"],
    ["src/storage", 'import { saveResult } from "../storage/results-repo";', "src/storage/results-repo.ts"],
    ["src/index.ts", 'import worker from "../index";', "src/index.ts"],
    ["an LLM adapter", 'import { OpenAiAdapter } from "../llm/openai";', "src/llm/openai.ts"],
  ])("fails when the core reaches %s", (_kind, line, target) => {
    const root = tree({
      ...CLEAN,
      "src/http/app.ts": "export const app = 1;",
      "src/storage/results-repo.ts": "export const saveResult = 1;",
      "src/submit/plan.ts": "export const planRun = 1;",
      "src/jobs/job-runner.ts": "export const runJob = 1;",
      "src/coordinator/progress.ts": "export const summarize = 1;",
      "src/limiter/lease-pool.ts": "export const leasePool = 1;",
      "src/adapters/workspace.ts": "export const r2Workspace = 1;",
      "src/rubric/trait.ts": `${line}\nexport const y = 2;`,
    });
    const r = run(root);
    expect(r.code).toBe(1);
    expect(r.out).toContain("src/rubric/trait.ts:1:");
    expect(r.out).toContain(target);
  });

  it("follows relative imports out of the core and reports the import where it happens", () => {
    const root = tree({
      ...CLEAN,
      "src/pipeline/stages/parse.ts": 'import { schemaFor } from "../../schemas/judge";\nexport const p = schemaFor;',
      "src/schemas/judge.ts": 'import { util } from "./util";\nexport const schemaFor = util;',
      "src/schemas/util.ts": '\n\nimport Anthropic from "@anthropic-ai/sdk";\nexport const util = Anthropic;',
    });
    const r = run(root);
    expect(r.code).toBe(1);
    expect(r.out).toContain('src/schemas/util.ts:3: import "@anthropic-ai/sdk"');
    expect(r.out).toContain("src/pipeline/stages/parse.ts:1 -> src/schemas/judge.ts:1");
  });

  it("ignores type-only imports of platform modules", () => {
    const root = tree({
      ...CLEAN,
      "src/judges/types.ts": [
        'import type { Context } from "hono";',
        'export type { ChatCompletion } from "openai/resources";',
        'import { type MessageBatch } from "cloudflare:workers";',
        "export type X = Context | MessageBatch;",
      ].join("\n"),
    });
    expect(run(root).code).toBe(0);
  });

  it("prints the folder import graph of src/", () => {
    const r = run(tree(CLEAN));
    expect(r.out).toContain("folder import graph of src/");
    expect(r.out).toContain("src/pipeline → src/env.ts, src/llm, src/run, src/templates");
    expect(r.out).toContain("no folder cycles");
  });

  it("fails on a folder cycle, naming each edge with the import that makes it, type-only imports included", () => {
    const root = tree({
      ...CLEAN,
      "src/storage/store.ts": 'import type { Spec } from "../adapters/spec";\nexport const store = 1;',
      "src/adapters/spec.ts": '\nimport { store } from "../storage/store";\nexport type Spec = typeof store;',
    });
    const r = run(root);
    expect(r.code).toBe(1);
    expect(r.out).toContain("1 folder import cycle(s)");
    expect(r.out).toContain("src/adapters ↔ src/storage");
    expect(r.out).toContain("src/storage → src/adapters  (src/storage/store.ts:1)");
    expect(r.out).toContain("src/adapters → src/storage  (src/adapters/spec.ts:2)");
  });

  it("leaves out src/env.ts's Durable Object binding types, which every Worker with Durable Objects loops through", () => {
    const root = tree({
      ...CLEAN,
      "src/env.ts": 'export interface Env { RUNS: DurableObjectNamespace<import("./coordinator/do").Do> }',
      "src/coordinator/do.ts": 'import type { Env } from "../env";\nexport class Do { env?: Env }',
    });
    const r = run(root);
    expect(r.out).toContain("no folder cycles");
    expect(r.code).toBe(0);
  });

  it("still fails on any other import out of src/env.ts that closes a cycle", () => {
    const root = tree({
      ...CLEAN,
      "src/env.ts": 'import type { Do } from "./coordinator/do";\nexport interface Env { d?: Do }',
      "src/coordinator/do.ts": 'import type { Env } from "../env";\nexport class Do { env?: Env }',
    });
    const r = run(root);
    expect(r.code).toBe(1);
    expect(r.out).toContain("src/coordinator ↔ src/env.ts");
  });
});
