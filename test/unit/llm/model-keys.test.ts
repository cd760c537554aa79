import { describe, expect, it } from "vitest";
import { modelKeyIssues, type ModelKeys } from "../../../src/llm/model-keys";

const keys = (set: Record<string, string>, destination: string | null = null): ModelKeys => ({
  secret: (name) => set[name],
  destinationIssue: () => destination,
  urlIssue: () => null,
});
const advice = (name: string) => `set ${name}`;
const at = { model: "config.parsing_models[0]", base_url: "config.parsing_models[0].base_url" };

describe("modelKeyIssues: the one check of a model's key for runs and /v1/judge", () => {
  it("names a missing secret at the model, with the advice how to set it", () => {
    expect(modelKeyIssues({ id: "p", interface: "openai" }, at, keys({}), advice)).toEqual({
      unset: [{ path: at.model, message: "model p needs the secret OPENAI_API_KEY, which is not set; set OPENAI_API_KEY" }],
      misdirected: [],
    });
  });

  it("names a key going where it may not at the base_url", () => {
    const m = { id: "p", interface: "openai_compatible" as const, api_key_secret: "K", base_url: "https://x.example" };
    expect(modelKeyIssues(m, at, keys({ K: "k" }, "not allowed there"), advice)).toEqual({
      unset: [],
      misdirected: [{ path: at.base_url, message: "model p: not allowed there" }],
    });
  });

  it("has nothing to say about a model that sends no key, wherever it points", () => {
    const m = { id: "p", interface: "openai_compatible" as const, base_url: "https://x.example" };
    const none = { unset: [], misdirected: [] };
    expect(modelKeyIssues(m, at, keys({}, "never asked"), advice)).toEqual(none);
    expect(modelKeyIssues({ id: "m", interface: "manual" }, at, keys({}, "never asked"), advice)).toEqual(none);
  });
});
