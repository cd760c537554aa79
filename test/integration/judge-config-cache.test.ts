/**
 * /v1/judge keeps the configs it parsed (src/http/judge.ts parseJudgeRequest): a request with a
 * known config checks only its other fields, and must answer exactly as the whole parse does.
 */
import { describe, expect, it } from "vitest";
import { validate } from "../../src/http/body";
import type { ApiFailure } from "../../src/http/errors";
import { parseJudgeRequest } from "../../src/http/judge";
import { JudgeRequest } from "../../src/schemas/judge";
import { fakeModel, uniqueModel } from "./helpers";

const failureOf = (parse: () => unknown) => {
  try {
    parse();
    return null;
  } catch (e) {
    return (e as ApiFailure).error;
  }
};

describe("judge configs kept per isolate", () => {
  it("parses a known config's request as the whole parse does, each request with a copy of its own", () => {
    const config = { provider: fakeModel("j", uniqueModel("cfg-cache")), type: "likert", prompt: "Rate it." };
    const first = parseJudgeRequest({ output: "a", config });
    const second = parseJudgeRequest({ output: "b", input: "q", deadline_ms: 500, config: structuredClone(config) });
    expect(second).toEqual(JudgeRequest.parse({ output: "b", input: "q", deadline_ms: 500, config }));
    expect(second.config).toEqual(first.config);
    expect(second.config).not.toBe(first.config);
    (second.config as { prompt?: string }).prompt = "changed";
    expect(parseJudgeRequest({ output: "c", config }).config).toMatchObject({ prompt: "Rate it." });
  });

  it("refuses a known config's request for its other fields with the whole parse's issues", () => {
    const config = { provider: fakeModel("j", uniqueModel("cfg-cache-400")), type: "judge" };
    parseJudgeRequest({ output: "a", config });
    for (const bad of [{ config }, { output: 1, config }, { output: "a", config, deadline_ms: 0 }, { output: "a", config, extra: true }]) {
      const cached = failureOf(() => parseJudgeRequest(bad));
      expect(cached).toMatchObject({ code: "invalid_body" });
      expect(cached).toEqual(failureOf(() => validate(JudgeRequest, bad)));
    }
  });
});
