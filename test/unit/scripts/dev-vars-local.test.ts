// Issue 15 item 3: npm start and npm run dev pass every entry of .dev.vars.local to the worker;
// keys given by the script (from the environment) win, and secret-looking values are masked.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { workerEnvEntries } from "../../../scripts/lib/env-files.mjs";
import { tempDirs } from "../../support/temp-dirs";

const tempDir = tempDirs();

function localFile(text: string): string {
  const dir = tempDir("edgeval-dev-vars-");
  const file = path.join(dir, ".dev.vars.local");
  fs.writeFileSync(file, text);
  return file;
}

describe("workerEnvEntries (.dev.vars.local)", () => {
  it("passes every entry through, the script's secrets winning, and masks secret-looking values only", () => {
    const file = localFile(
      "# my local settings\nEDGEVAL_KEY_ORIGINS=http://127.0.0.1:8000\nTAVILY_API_KEY='tvly-local-1234'\nOPENAI_API_KEY=sk-from-file\nMY_TOKEN=\"tok-5678\"\n",
    );
    const { entries, mask, localNames } = workerEnvEntries({ OPENAI_API_KEY: "sk-from-env" }, file);
    expect(entries).toEqual({
      EDGEVAL_KEY_ORIGINS: "http://127.0.0.1:8000",
      TAVILY_API_KEY: "tvly-local-1234",
      OPENAI_API_KEY: "sk-from-env",
      MY_TOKEN: "tok-5678",
    });
    expect(localNames).toEqual(["EDGEVAL_KEY_ORIGINS", "TAVILY_API_KEY", "OPENAI_API_KEY", "MY_TOKEN"]);
    expect(mask).toEqual(expect.arrayContaining(["sk-from-env", "tvly-local-1234", "sk-from-file", "tok-5678"]));
    expect(mask).not.toContain("http://127.0.0.1:8000");
  });

  it("is only the script's secrets when the file is absent", () => {
    const missing = path.join(os.tmpdir(), `no-such-dir-${process.pid}`, ".dev.vars.local");
    expect(workerEnvEntries({ ANTHROPIC_API_KEY: "k-1234" }, missing)).toEqual({
      entries: { ANTHROPIC_API_KEY: "k-1234" },
      mask: ["k-1234"],
      localNames: [],
    });
  });
});
