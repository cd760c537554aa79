// Issue 25: the README's deploy runbook creates exactly the resources wrangler.toml binds, and
// applies the migrations and lifecycle rules to those, so a rename on either side fails here.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { experimental_readRawConfig } from "wrangler";
import { describe, expect, it } from "vitest";
import { r2Keys } from "../../../src/storage/r2-keys";
// @ts-expect-error plain-Node module without types
import { REPO_ROOT } from "../../../scripts/lib/repo-root.mjs";

/** The README's "Deploy runbook" section, up to the next level-2 heading. */
function runbook(): string {
  const readme = fs.readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
  const start = readme.indexOf("## Deploy runbook\n");
  expect(start, "README.md has a '## Deploy runbook' section").toBeGreaterThanOrEqual(0);
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** First arguments of every `npx wrangler <command>` line in the runbook's shell blocks. */
function argsOf(text: string, command: string): string[] {
  const re = new RegExp(`^npx wrangler ${command} (\\S+)`, "gm");
  return [...text.matchAll(re)].map((m) => m[1]!);
}

/** The parts of wrangler.toml this test reads (wrangler's own parser reads the file). */
interface Bindings {
  d1_databases?: { database_name: string }[];
  queues?: { producers?: { queue: string }[]; consumers?: { queue: string; dead_letter_queue?: string }[] };
  r2_buckets?: { bucket_name: string }[];
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

describe("deploy runbook (README) against wrangler.toml", () => {
  const rawConfig = experimental_readRawConfig({ config: path.join(REPO_ROOT, "wrangler.toml") }).rawConfig as Bindings;
  const text = runbook();

  it("creates every D1 database, queue and R2 bucket wrangler.toml binds, and nothing else", () => {
    const d1 = (rawConfig.d1_databases ?? []).map((d) => d.database_name);
    const queues = [
      ...(rawConfig.queues?.producers ?? []).map((p) => p.queue),
      ...(rawConfig.queues?.consumers ?? []).flatMap((c) => [c.queue, ...(c.dead_letter_queue ? [c.dead_letter_queue] : [])]),
    ];
    const buckets = (rawConfig.r2_buckets ?? []).map((b) => b.bucket_name);
    expect(d1.length * queues.length * buckets.length).toBeGreaterThan(0);
    expect(sorted(argsOf(text, "d1 create"))).toEqual(sorted(d1));
    expect(sorted(argsOf(text, "queues create"))).toEqual(sorted(queues));
    expect(sorted(argsOf(text, "r2 bucket create"))).toEqual(sorted(buckets));
  });

  it("applies the migrations remotely to that database, then builds and deploys", () => {
    const d1 = (rawConfig.d1_databases ?? []).map((d) => d.database_name);
    expect(text).toMatch(/^npx wrangler d1 migrations apply \S+ --remote$/m);
    expect(sorted(argsOf(text, "d1 migrations apply"))).toEqual(sorted(d1));
    expect(text).toMatch(/^npm run build\b/m);
    expect(text).toMatch(/^npx wrangler deploy$/m);
  });

  it("puts every secret the worker requires, and the lifecycle rules cover exactly cache prefixes of the bound bucket", () => {
    const secrets = argsOf(text, "secret put");
    for (const required of ["EDGEVAL_KEY_PEPPER", "EDGEVAL_ADMIN_TOKEN", "EDGEVAL_SECRETS_KEK"]) expect(secrets).toContain(required);
    // Every secret the worker reads (a binding of src/env.ts named like a key, token, pepper or KEK) has its line.
    const envSource = fs.readFileSync(path.join(REPO_ROOT, "src/env.ts"), "utf8");
    const secretBindings = [...envSource.matchAll(/^\s+([A-Z][A-Z0-9_]*(?:_KEY|_TOKEN|_PEPPER|_KEK))\?: string;/gm)].map((m) => m[1]!);
    expect(secretBindings).toEqual(expect.arrayContaining(["EDGEVAL_PROMPT_NONCE_KEY", "OPENAI_API_KEY", "TAVILY_API_KEY"]));
    expect(
      sorted(secretBindings.filter((name) => !secrets.includes(name))),
      "secrets src/env.ts reads that the runbook never puts",
    ).toEqual([]);
    const rules = [...text.matchAll(/^npx wrangler r2 bucket lifecycle add (\S+) (\S+) (\S+) --expire-days (\d+)/gm)];
    expect(rules.length).toBeGreaterThan(0);
    const buckets = (rawConfig.r2_buckets ?? []).map((b) => b.bucket_name);
    for (const [, bucket, , prefix, days] of rules) {
      expect(buckets).toContain(bucket);
      // The prefix r2-keys.ts gives the cache of that tenant (or of runs from before tenants).
      const tenant = prefix!.match(/^t\/([^/]+)\/cache\/v1\/$/)?.[1];
      expect(prefix).toBe(r2Keys.cachePrefix(tenant));
      // Past the longest cache ttl_s (30 days, src/schemas/api.ts): a rule never deletes a live entry.
      expect(Number(days)).toBeGreaterThan(30);
    }
    expect(rules.map((r) => r[3])).toContain(r2Keys.cachePrefix(undefined));
  });

  it("npm run build (the runbook's pre-deploy check: wrangler deploy --dry-run) bundles the worker", () => {
    // A bundle left by an earlier build must not pass for this one's.
    fs.rmSync(path.join(REPO_ROOT, "dist"), { recursive: true, force: true });
    const out = execFileSync("npm", ["run", "build"], { cwd: REPO_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    expect(out).toContain("--dry-run: exiting now.");
    expect(fs.statSync(path.join(REPO_ROOT, "dist", "index.js")).size).toBeGreaterThan(0);
  }, 120_000);
});
