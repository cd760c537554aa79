import { describe, expect, it } from "vitest";
import { TAVILY_SECRET } from "../../../src/adapters/search-tavily";
import { SEARCH_SECRET, secretNamesIn } from "../../../src/tenants/secret-names";

describe("secretNamesIn", () => {
  it("names the search key always, as adapters/search-tavily.ts spells it", () => {
    expect(SEARCH_SECRET).toBe(TAVILY_SECRET);
    expect([...secretNamesIn({})]).toEqual([TAVILY_SECRET]);
  });

  it("finds every model's key wherever it sits, the interface defaults included, and every MCP token", () => {
    const body = {
      config: {
        answering_models: [
          { id: "a", interface: "openai", model_name: "x" },
          { id: "b", interface: "openai_compatible", model_name: "x", mcp_auth_secrets: { "https://mcp.example.com": "MCP_TOKEN" } },
        ],
        parsing_models: [{ id: "j", interface: "anthropic", model_name: "x", api_key_secret: "JUDGE_KEY" }],
        embedding_check_provider: { id: "e", interface: "openai_compatible", model_name: "x", api_key_secret: "EMBED_KEY" },
      },
      benchmark: {
        questions: [{ id: "q", rubric: { llm_traits: [{ name: "t", model: { id: "r", interface: "anthropic", model_name: "y" } }] } }],
      },
    };
    expect([...secretNamesIn(body)].sort()).toEqual(
      ["ANTHROPIC_API_KEY", "EMBED_KEY", "JUDGE_KEY", "MCP_TOKEN", "OPENAI_API_KEY", TAVILY_SECRET].sort(),
    );
  });

  it("names nothing for keyless models (manual, workers_ai, openai_compatible without a secret)", () => {
    const models = [
      { id: "m", interface: "manual", manual_answers: {} },
      { id: "w", interface: "workers_ai", model_name: "x" },
      { id: "c", interface: "openai_compatible", model_name: "x" },
    ];
    expect([...secretNamesIn(models)]).toEqual([TAVILY_SECRET]);
  });
});
