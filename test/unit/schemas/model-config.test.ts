import { describe, expect, it } from "vitest";
import { ModelConfig, agentConfig, mcpConfig } from "../../../src/schemas/model-config";
import { canonicalKey, displayString, modelIdentity } from "../../../src/schemas/model-identity";
import { expectIssue, parseOk } from "./issues";

describe("ModelConfig normalisation", () => {
  it("applies Karenina's defaults (temperature 0.1, max_tokens 16384)", () => {
    expect(parseOk(ModelConfig, { id: "gpt", interface: "openai", model_name: "gpt-4o" })).toEqual({
      id: "gpt",
      interface: "openai",
      model_name: "gpt-4o",
      temperature: 0.1,
      max_tokens: 16384,
    });
  });
  it("resolves Karenina's langchain interface by model_provider", () => {
    expect(
      parseOk(ModelConfig, { id: "a", interface: "langchain", model_provider: "anthropic", model_name: "claude-haiku-4-5" }).interface,
    ).toBe("anthropic");
    expect(parseOk(ModelConfig, { id: "a", model_provider: "openai", model_name: "gpt-4o" }).interface).toBe("openai");
  });
  it("maps openai_endpoint + endpoint_base_url to openai_compatible + base_url", () => {
    const m = parseOk(ModelConfig, {
      id: "local",
      interface: "openai_endpoint",
      model_name: "llama",
      endpoint_base_url: "http://localhost:8000/v1",
      max_retries: 2,
    });
    expect(m).toMatchObject({ interface: "openai_compatible", base_url: "http://localhost:8000/v1" });
    expect(m).not.toHaveProperty("max_retries");
  });
  it("accepts the unsupported Karenina fields when they are null", () => {
    parseOk(ModelConfig, {
      id: "a",
      interface: "openai",
      model_name: "m",
      mcp_urls_dict: null,
      endpoint_api_key: null,
      extra_kwargs: null,
      retry_policy: null,
    });
  });
  // Karenina's ModelConfig.request_timeout / retry_policy (schemas/config/models.py:614-621): honoured per model.
  it("keeps request_timeout and a Karenina retry_policy, with CategoryRetryConfig's defaults inside a named class", () => {
    const m = parseOk(ModelConfig, {
      ...{ id: "a", interface: "openai", model_name: "m" },
      request_timeout: 30,
      retry_policy: { rate_limit: { max_attempts: 7 } },
    });
    expect(m).toMatchObject({
      request_timeout: 30,
      retry_policy: { rate_limit: { max_attempts: 7, backoff_min: 1, backoff_max: 10, backoff_multiplier: 2 } },
    });
  });
  it("gives a manual model id and model_name 'manual' and keeps its answers", () => {
    const m = parseOk(ModelConfig, { interface: "manual", manual_answers: { q1: "BCL2", q2: [{ role: "assistant", content: "TP53" }] } });
    expect(m).toMatchObject({ id: "manual", model_name: "manual", interface: "manual" });
  });
  it("keeps a valid api_key_secret name", () => {
    expect(
      parseOk(ModelConfig, { id: "a", interface: "anthropic", model_name: "m", api_key_secret: "ANTHROPIC_KEY_TEAM_2" }).api_key_secret,
    ).toBe("ANTHROPIC_KEY_TEAM_2");
  });
});

describe("ModelConfig rejects, at the exact path", () => {
  const base = { id: "a", interface: "openai", model_name: "gpt-4o" };
  it.each<[string, Record<string, unknown>, string, RegExp]>([
    [
      "langchain with another provider",
      { ...base, interface: "langchain", model_provider: "google_genai" },
      "model_provider",
      /must be "openai" or "anthropic"; got model_provider "google_genai"/,
    ],
    ["langchain without a provider", { ...base, interface: "langchain" }, "model_provider", /got no model_provider/],
    ["a request_timeout past the limiter's lease", { ...base, request_timeout: 600 }, "request_timeout", /≤ 140 s/],
    [
      "a retry_policy with timeout_escalation",
      { ...base, retry_policy: { timeout_escalation: { strategy: "additive", increment: 5 } } },
      "retry_policy.timeout_escalation",
      /not supported/,
    ],
    ["an interface edgeval does not speak", { ...base, interface: "openrouter" }, "interface", /interface "openrouter" is not supported/],
    [
      "a provider contradicting the interface",
      { ...base, model_provider: "anthropic" },
      "model_provider",
      /contradicts interface "openai"/,
    ],
    ["openai_compatible without base_url", { ...base, interface: "openai_compatible" }, "base_url", /needs base_url/],
    ["a non-http base_url", { ...base, base_url: "ftp://x" }, "base_url", /http\(s\) URL/],
    ["a non-null agent runtime", { ...base, agent_runtime: { backend: "docker" } }, "agent_runtime", /agent_runtime is not supported/],
    ["an MCP option without servers", { ...base, mcp_tool_filter: ["search"] }, "mcp_tool_filter", /needs mcp_urls_dict/],
    ["agent limits without servers", { ...base, agent_timeout: 30 }, "agent_timeout", /needs mcp_urls_dict/],
    ["an MCP server URL that is not http(s)", { ...base, mcp_urls_dict: { s: "ftp://x" } }, "mcp_urls_dict.s", /http\(s\) URL/],
    ["an empty server map", { ...base, mcp_urls_dict: {} }, "mcp_urls_dict", /at least one server/],
    [
      "MCP on a manual model",
      { interface: "manual", manual_answers: { q: "x" }, mcp_urls_dict: { s: "https://mcp.example" } },
      "mcp_urls_dict",
      /tool-calling model/,
    ],
    [
      "an auth secret for an unknown server",
      { ...base, mcp_urls_dict: { s: "https://mcp.example" }, mcp_auth_secrets: { t: "TOKEN" } },
      "mcp_auth_secrets",
      /server "t", which is not in mcp_urls_dict/,
    ],
    [
      "an auth secret value instead of a name",
      { ...base, mcp_urls_dict: { s: "https://mcp.example" }, mcp_auth_secrets: { s: "sk-live-123" } },
      "mcp_auth_secrets.s",
      /name of a secret/,
    ],
    [
      "LangChain middleware edgeval does not run",
      { ...base, mcp_urls_dict: { s: "https://mcp.example" }, agent_middleware: { summarization: { enabled: true } } },
      "agent_middleware.summarization",
      /not supported/,
    ],
    [
      "a model_call_limit of 0",
      { ...base, mcp_urls_dict: { s: "https://mcp.example" }, agent_middleware: { limits: { model_call_limit: 0 } } },
      "agent_middleware.limits.model_call_limit",
      /≥ 1/,
    ],
    [
      "an endpoint_api_key value",
      { ...base, endpoint_api_key: "sk-123" },
      "endpoint_api_key",
      /never accepted in a config.*api_key_secret/,
    ],
    ["an anthropic_api_key value", { ...base, interface: "anthropic", anthropic_api_key: "sk-ant" }, "anthropic_api_key", /never accepted/],
    [
      "api_key_secret = EDGEVAL_API_TOKEN",
      { ...base, api_key_secret: "EDGEVAL_API_TOKEN" },
      "api_key_secret",
      /must not be EDGEVAL_API_TOKEN/,
    ],
    [
      "an api_key_secret that is not a secret name",
      { ...base, api_key_secret: "sk-live-123" },
      "api_key_secret",
      /name of a worker secret/,
    ],
    ["a manual model without answers", { interface: "manual" }, "manual_answers", /needs manual_answers/],
    [
      "a manual answer trace with a bad role",
      { interface: "manual", manual_answers: { q1: [{ role: "bot", content: "x" }] } },
      "manual_answers.q1[0].role",
      /role is "system", "user", "assistant" or "tool"/,
    ],
    [
      "a manual answer that is neither text nor a trace",
      { interface: "manual", manual_answers: { q1: 42 } },
      "manual_answers.q1",
      /string or a list of messages/,
    ],
    ["an API model without model_name", { id: "a", interface: "openai" }, "model_name", /model_name is required/],
    ["an API model without id", { interface: "openai", model_name: "m" }, "id", /id is required/],
    ["an unknown key", { ...base, top_p: 0.9 }, "", /Unrecognized key: "top_p"/],
    ["a negative temperature", { ...base, temperature: -1 }, "temperature", /≥ 0/],
  ])("%s", (_what, input, path, message) => {
    expectIssue(ModelConfig, input, path, message);
  });
});

describe("MCP answering agents", () => {
  const agent = {
    id: "agent",
    interface: "openai",
    model_name: "gpt-4o",
    mcp_urls_dict: { web: "https://mcp.example/web", files: "https://mcp.example/files" },
    mcp_tool_filter: ["search"],
    mcp_tool_description_overrides: { search: "Search the web." },
    mcp_http_timeout: 10,
    mcp_sse_read_timeout: 60,
    mcp_auth_secrets: { web: "WEB_MCP_TOKEN" },
    agent_timeout: 90,
    agent_middleware: { limits: { model_call_limit: 5, tool_call_limit: 9, exit_behavior: "end" } },
  };
  it("keeps Karenina's fields as given, so a stored spec parses again to the same config", () => {
    const parsed = parseOk(ModelConfig, agent);
    expect(parseOk(ModelConfig, JSON.parse(JSON.stringify(parsed)))).toEqual(parsed);
    expect(mcpConfig(parsed)).toEqual({
      servers: agent.mcp_urls_dict,
      tool_filter: ["search"],
      description_overrides: { search: "Search the web." },
      http_timeout_s: 10,
      sse_read_timeout_s: 60,
      auth_secrets: { web: "WEB_MCP_TOKEN" },
    });
    expect(agentConfig(parsed)).toEqual({ model_call_limit: 5, tool_call_limit: 9, timeout_s: 90 });
  });
  it("names the servers as the identity's tools, sorted (Karenina's canonical key)", () => {
    const parsed = parseOk(ModelConfig, agent);
    expect(modelIdentity(parsed).tools).toEqual(["files", "web"]);
    expect(canonicalKey(parsed)).toBe("openai:gpt-4o:agent:files|web");
  });
  it("a plain model has no MCP config and no tools", () => {
    const plain = parseOk(ModelConfig, { id: "m", interface: "openai", model_name: "m", mcp_urls_dict: null });
    expect(mcpConfig(plain)).toBeNull();
    expect(modelIdentity(plain).tools).toEqual([]);
  });
});

describe("model identity", () => {
  const judge = parseOk(ModelConfig, { id: "judge", interface: "anthropic", model_name: "claude-haiku-4-5" });
  const plain = parseOk(ModelConfig, { id: "gpt-4o", interface: "openai", model_name: "gpt-4o" });
  it("records config_id only when the id differs from the model name", () => {
    expect(modelIdentity(judge)).toEqual({ interface: "anthropic", model_name: "claude-haiku-4-5", tools: [], config_id: "judge" });
    expect(modelIdentity(plain).config_id).toBeNull();
  });
  it("canonicalKey is Karenina's interface:model[:id]:tools, with an empty tools part", () => {
    expect(canonicalKey(judge)).toBe("anthropic:claude-haiku-4-5:judge:");
    expect(canonicalKey(plain)).toBe("openai:gpt-4o:");
    expect(canonicalKey({ interface: "openai", model_name: "m", tools: ["web", "code"], config_id: null })).toBe("openai:m:code|web");
  });
  it("displayString is interface:model (id) +[tools]", () => {
    expect(displayString(judge)).toBe("anthropic:claude-haiku-4-5 (judge)");
    expect(displayString(plain)).toBe("openai:gpt-4o");
    expect(displayString({ interface: "openai", model_name: "m", tools: ["web"], config_id: "x" })).toBe("openai:m (x) +[web]");
  });
});
