import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isLocalMode, secretAdvice } from "../../../src/env";

const repo = path.resolve(import.meta.dirname, "../../..");

describe("isLocalMode", () => {
  it("is true only for EDGEVAL_ENV=local", () => {
    expect(isLocalMode({ EDGEVAL_ENV: "local" })).toBe(true);
  });

  it("is production when EDGEVAL_ENV is absent, empty or anything else", () => {
    for (const v of [undefined, "", "production", "LOCAL", " local", "dev", 1, true]) {
      expect(isLocalMode({ EDGEVAL_ENV: v })).toBe(false);
    }
    expect(isLocalMode({})).toBe(false);
  });

  it("is set by .dev.vars and by the local stack the scripts start", () => {
    expect(fs.readFileSync(path.join(repo, ".dev.vars"), "utf8")).toMatch(/^EDGEVAL_ENV=local$/m);
    expect(fs.readFileSync(path.join(repo, "scripts/lib/local-stack.mjs"), "utf8")).toContain('EDGEVAL_ENV: "local"');
  });
});

describe("secretAdvice", () => {
  it("names wrangler secret put in production and the local files in local mode", () => {
    expect(secretAdvice("MY_KEY", {})).toBe("PUT /v1/secrets/MY_KEY, or for the deployment's own keys wrangler secret put MY_KEY");
    expect(secretAdvice("MY_KEY", { EDGEVAL_ENV: "local" })).toBe(
      "PUT /v1/secrets/MY_KEY, or for the deployment's own keys add MY_KEY=… to .dev.vars.local, then restart npm start / npm run dev",
    );
    expect(secretAdvice("OPENAI_API_KEY", { EDGEVAL_ENV: "local" })).toContain("or export OPENAI_API_KEY before npm run dev");
  });
});
