/**
 * Issue 15 item 2: a dry run calls no model, so it never demands provider keys. Karenina's
 * preset_full.json (anthropic models, no key set here) is a 200 with an estimate and a warning per
 * model naming the secret; the real run is still refused. The advice fits where the worker runs:
 * in local mode (EDGEVAL_ENV=local, as the tests and npm run dev set it) .dev.vars.local, in
 * production `wrangler secret put`.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/app";
import preset from "../fixtures/karenina/preset_full.json";
import { api, exactTemplate, TOKEN } from "./helpers";

const body = {
  benchmark: { name: "preset", questions: [{ id: "q1", question: "Which gene encodes p53?", template: exactTemplate("TP53") }] },
  config: (preset as { config: unknown }).config,
};

type Issue = { path: string; message: string };

/** The dry run, against the app with another set of bindings (a secret set, local mode off). */
const dryRunIn = (bindings: object) =>
  buildApp().fetch(
    new Request("http://edgeval.test/v1/runs", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ ...body, dry_run: true }),
    }),
    bindings,
  );

describe("dry runs and missing secrets", () => {
  it("answers a dry run of Karenina's preset_full.json with 200, an estimate and warnings with local advice", async () => {
    const res = await api("/v1/runs", { method: "POST", json: { ...body, dry_run: true } });
    const out = (await res.json()) as { estimate: { calls: number }; warnings: Issue[] };
    expect(res.status, JSON.stringify(out)).toBe(200);
    expect(out.estimate.calls).toBeGreaterThan(0);
    expect(out.warnings.map((w) => w.path).sort()).toEqual(["config.answering_models[0]", "config.parsing_models[0]"]);
    for (const w of out.warnings) {
      expect(w.message).toContain("needs the secret ANTHROPIC_API_KEY, which is not set; PUT /v1/secrets/ANTHROPIC_API_KEY");
      expect(w.message).toContain(".dev.vars.local");
      expect(w.message).toContain("export ANTHROPIC_API_KEY before npm run dev");
      expect(w.message).not.toContain("wrangler secret put");
    }
  });

  it("still refuses the real run, with the same advice, and a dry run with the secret set has no warnings", async () => {
    const res = await api("/v1/runs", { method: "POST", json: body });
    expect(res.status).toBe(400);
    const issues = ((await res.json()) as { error: { issues: Issue[] } }).error.issues;
    expect(issues.map((i) => i.path).sort()).toEqual(["config.answering_models[0]", "config.parsing_models[0]"]);
    expect(issues[0]!.message).toContain(".dev.vars.local");

    const withKey = await dryRunIn({ ...env, ANTHROPIC_API_KEY: "sk-ant-test-only" });
    expect(withKey.status).toBe(200);
    expect(((await withKey.json()) as { warnings: Issue[] }).warnings).toEqual([]);
  });

  it("advises wrangler secret put in production mode (EDGEVAL_ENV unset)", async () => {
    const { EDGEVAL_ENV: _local, ...production } = env as unknown as Record<string, unknown>;
    const res = await dryRunIn(production);
    expect(res.status).toBe(200);
    const { warnings } = (await res.json()) as { warnings: Issue[] };
    expect(warnings).toHaveLength(2);
    for (const w of warnings) {
      expect(w.message).toContain("or for the deployment's own keys wrangler secret put ANTHROPIC_API_KEY");
      expect(w.message).not.toContain(".dev.vars.local");
    }
  });
});
