/**
 * Issue 18 item 4, Done when: promptfoo 0.123.1 (installed by test/support/promptfoo.ts into a
 * cache folder outside the repository) runs the README's promptfooconfig.yaml — read from the
 * README, so the README's example is what is tested — with `promptfoo eval` against the local stack
 * and the fake LLM. The fake answers for promptfoo's own provider (OPENAI_BASE_URL) and for the
 * stored judge (the README's judge with its provider pointed at the fake): two tests pass and one
 * fails with our judge's scores in promptfoo's JSON output; after the token is revoked promptfoo
 * reports a webhook error for every test.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type EdgevalClient, type StoredJudgeRequest } from "../../src/client/index.ts";
import { ensurePromptfoo, promptfooNode } from "../support/promptfoo";
// @ts-expect-error plain-Node module without types
import { REPO_ROOT, startLocalStack } from "../../scripts/lib/local-stack.mjs";

const run = promisify(execFile);
const JUDGE_MODEL = "edgeval-promptfoo-judge";

/** The fenced block that follows `<!-- promptfoo:NAME -->` in the README. */
function readmeBlock(readme: string, name: string): string {
  const m = new RegExp(`<!-- promptfoo:${name.replace(/\./g, "\\.")} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\\n\`\`\``).exec(readme);
  if (!m) throw new Error(`README.md has no block marked <!-- promptfoo:${name} -->`);
  return m[1]!;
}

interface PromptfooResult {
  success: boolean;
  score: number;
  vars: Record<string, string>;
  response?: { output?: string };
  gradingResult: {
    pass: boolean;
    score: number;
    reason: string;
    componentResults?: { pass: boolean; score: number; reason: string; assertion?: { type: string } }[];
  };
}

describe("promptfoo's webhook assertion grades with a stored judge (the README's example)", () => {
  let stack: { url: string; token: string; fake: { url: string }; stop(): Promise<void> };
  let ev: EdgevalClient;
  let promptfoo: string;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "edgeval-promptfoo-"));
  const readme = fs.readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");

  beforeAll(async () => {
    [promptfoo, stack] = await Promise.all([ensurePromptfoo(), startLocalStack({ fake: {} })]);
    ev = createClient({ url: stack.url, token: stack.token });
    const rules = [
      // promptfoo's provider (openai:chat:gpt-4.1-mini) gets one answer wrong.
      { match: { model: "gpt-4.1-mini", contains: "capital of France" }, reply: { text: "Paris" } },
      { match: { model: "gpt-4.1-mini", contains: "capital of Japan" }, reply: { text: "Tokyo" } },
      { match: { model: "gpt-4.1-mini", contains: "capital of Australia" }, reply: { text: "Sydney" } },
      // The judge: scores promptfoo would never make up itself (its defaults are 1 and 0).
      { match: { model: JUDGE_MODEL, contains: "Sydney" }, reply: { json: { answer: 0.05 } } },
      { match: { model: JUDGE_MODEL }, reply: { json: { answer: 0.95 } } },
    ];
    const res = await fetch(`${stack.fake.url}/_admin/rules`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ rules }),
    });
    expect(res.status).toBe(200);
  }, 300_000);
  afterAll(async () => {
    await stack?.stop();
    fs.rmSync(work, { recursive: true, force: true });
  });

  /** `promptfoo eval` on the README's config; promptfoo's JSON output, read back. */
  async function evalReadmeConfig(judgeId: string, token: string): Promise<{ results: PromptfooResult[]; stats: Record<string, number> }> {
    const config = path.join(work, "promptfooconfig.yaml");
    fs.writeFileSync(config, readmeBlock(readme, "promptfooconfig.yaml"));
    const out = path.join(work, `out-${Date.now()}.json`);
    const env = {
      PATH: process.env.PATH,
      HOME: work,
      PROMPTFOO_CONFIG_DIR: path.join(work, ".promptfoo"),
      PROMPTFOO_DISABLE_TELEMETRY: "1",
      PROMPTFOO_DISABLE_UPDATE: "1",
      PROMPTFOO_DISABLE_SHARING: "1",
      PROMPTFOO_CACHE_ENABLED: "false",
      OPENAI_API_KEY: "sk-fake",
      OPENAI_BASE_URL: `${stack.fake.url}/v1`,
      EDGEVAL_URL: stack.url,
      EDGEVAL_JUDGE_ID: judgeId,
      EDGEVAL_JUDGE_TOKEN: token,
    };
    // A failing test makes promptfoo exit 100; the verdicts are read from its output file.
    await run(promptfooNode(), [promptfoo, "eval", "-c", config, "-o", out, "--no-cache", "--no-progress-bar", "--no-table"], {
      env,
      cwd: work,
      timeout: 120_000,
    }).catch((err) => {
      if (!fs.existsSync(out)) throw new Error(`promptfoo eval wrote no output (exit ${err.code}):\n${err.stdout}\n${err.stderr}`);
    });
    const doc = JSON.parse(fs.readFileSync(out, "utf8"));
    return { results: doc.results.results, stats: doc.results.stats };
  }

  it("passes two tests and fails one with the judge's scores; a revoked token is a webhook error", async () => {
    const judge = JSON.parse(readmeBlock(readme, "stored-judge.json")) as StoredJudgeRequest;
    // The README's judge runs on OpenAI; here its provider is the fake (openai_compatible, keyless).
    judge.config.provider = { id: "judge", interface: "openai_compatible", model_name: JUDGE_MODEL, base_url: `${stack.fake.url}/v1` };
    const stored = await ev.storedJudges.create(judge);
    const minted = await ev.storedJudges.mintToken(stored.judge_id, { name: "promptfoo e2e" });

    const first = await evalReadmeConfig(stored.judge_id, minted.token);
    const byCountry = Object.fromEntries(first.results.map((r) => [r.vars.country, r]));
    expect(Object.keys(byCountry).sort()).toEqual(["Australia", "France", "Japan"]);
    expect(first.stats).toMatchObject({ successes: 2, failures: 1, errors: 0 });
    for (const [country, pass, score] of [
      ["France", true, 0.95],
      ["Japan", true, 0.95],
      ["Australia", false, 0.05],
    ] as const) {
      const r = byCountry[country]!;
      expect({ country, success: r.success, output: r.response?.output }).toEqual({
        country,
        success: pass,
        output: { France: "Paris", Japan: "Tokyo", Australia: "Sydney" }[country],
      });
      const webhook = r.gradingResult.componentResults!.find((c: { assertion?: { type: string } }) => c.assertion?.type === "webhook")!;
      expect({ country, pass: webhook.pass, score: webhook.score }).toEqual({ country, pass, score });
      // The reason is our judge's, not promptfoo's default ("Assertion passed" / "Webhook returned false").
      expect(webhook.reason).not.toMatch(/^(Assertion passed|Webhook returned|Webhook error)/);
    }

    await ev.storedJudges.revokeToken(stored.judge_id, minted.token_id);
    const revoked = await evalReadmeConfig(stored.judge_id, minted.token);
    expect(revoked.results).toHaveLength(3);
    for (const r of revoked.results) {
      expect(r.success).toBe(false);
      expect(r.gradingResult.reason).toContain("Webhook error: Webhook response status: 401");
    }
  }, 300_000);
});
