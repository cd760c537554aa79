/**
 * MCP answering agents through the real queue, in workerd: the answering model (the fake LLM,
 * scripted turn by turn on the previous tool result) calls the two tools of a local MCP server
 * (test/mcp-server/server.mjs) over Streamable HTTP; the trace, agent_metrics and verdicts are
 * compared with values worked out by hand from the script.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { addFakeRules, allResults, api, exactTemplate, fakeModel, fakeStats, submitRun, uniqueModel, waitForRun } from "./helpers";

interface McpStats {
  initialize: number;
  tools_list: number;
  calls: Record<string, number>;
  sessions_refused: number;
}
const mcpStats = async (tag: string): Promise<McpStats> => (await fetch(`${env.MCP_SERVER_URL}/stats/${tag}`)).json();
/** The run's one result in full (the listing leaves trace_messages out). */
async function fullResult(runId: string) {
  const [listed] = await allResults(runId);
  return (await api(`/v1/runs/${runId}/results/${listed.metadata.result_id}`)).json() as Promise<any>;
}
const mcpUrl = (mode: "mcp" | "sse" | "auth", tag: string) => `${env.MCP_SERVER_URL}/${mode}/${tag}`;
const anthropicModel = (id: string, model_name: string, extra: Record<string, unknown> = {}) => ({
  id,
  interface: "anthropic",
  model_name,
  base_url: env.FAKE_LLM_URL,
  api_key_secret: "FAKE_PROVIDER_KEY",
  ...extra,
});

/** Turn 1 asks for France's capital, turn 2 for the population of whatever turn 1 returned, turn 3 answers with it. */
function capitalScript(model: string) {
  return [
    { match: { model, last_tool_result: "2102650" }, reply: { text: "The capital of France is Paris ({{last_tool_result}} people)." } },
    {
      match: { model, last_tool_result: "Paris" },
      reply: { tool_calls: [{ name: "population_of", arguments: { city: "{{last_tool_result}}" } }] },
    },
    { match: { model, kind: "tools" }, reply: { tool_calls: [{ name: "capital_of", arguments: { country: "France" } }] } },
  ];
}

const question = { id: "q-capital", question: "What is the capital of France?", template: exactTemplate("Paris") };

describe("MCP answering agent", () => {
  it("runs the tool loop against the MCP server: trace, agent_metrics and verdict as scripted (OpenAI format, JSON answers)", async () => {
    const answerer = uniqueModel("mcp-ans");
    const judge = uniqueModel("mcp-judge");
    const tag = uniqueModel("geo");
    await addFakeRules([...capitalScript(answerer), { match: { model: judge }, reply: { json: { answer: "Paris" } } }]);
    const runId = await submitRun({
      benchmark: { name: "mcp", questions: [question] },
      config: {
        answering_models: [fakeModel("agent", answerer, { mcp_urls_dict: { geo: mcpUrl("mcp", tag) } })],
        parsing_models: [fakeModel("j", judge)],
      },
    });
    expect((await waitForRun(runId)).status).toBe("completed");
    const r = await fullResult(runId);
    const t = r.template;
    const callId = (i: number) => t.trace_messages[i].tool_calls[0].id;
    expect(t.trace_messages).toEqual([
      { role: "assistant", content: "", tool_calls: [{ id: expect.any(String), name: "capital_of", arguments: { country: "France" } }] },
      { role: "tool", tool_call_id: callId(0), content: "Paris" },
      { role: "assistant", content: "", tool_calls: [{ id: expect.any(String), name: "population_of", arguments: { city: "Paris" } }] },
      { role: "tool", tool_call_id: callId(2), content: "2102650" },
      { role: "assistant", content: "The capital of France is Paris (2102650 people)." },
    ]);
    expect(t.raw_llm_response).toContain(`--- Tool Message (call_id: ${callId(2)}) ---\n2102650`);
    expect(t.agent_metrics).toEqual({
      iterations: 3,
      tool_calls: 2,
      tools_used: ["capital_of", "population_of"],
      tool_call_counts: { capital_of: 1, population_of: 1 },
      suspect_failed_tool_calls: 0,
      suspect_failed_tools: [],
    });
    expect(t.answering_mcp_servers).toEqual(["geo"]);
    expect(r.metadata.answering.tools).toEqual(["geo"]);
    expect(t.recursion_limit_reached).toBe(false);
    expect(t.response_timeout_partial).toBe(false);
    // The judge read the final AI message only.
    expect(r.evaluation_input).toBe("The capital of France is Paris (2102650 people).");
    expect(t.parsed_llm_response).toEqual({ answer: "Paris" });
    expect(t.verify_result).toBe(true);
    expect(r.metadata.failure).toBeNull();
    expect((await fakeStats(answerer)).total).toBe(3);
    expect(await mcpStats(tag)).toEqual({ initialize: 1, tools_list: 2, calls: { capital_of: 1, population_of: 1 }, sessions_refused: 0 });
  });

  it("Anthropic tool format over event-stream answers: a failing tool call counts as suspect, the agent recovers", async () => {
    const answerer = uniqueModel("mcp-claude");
    const judge = uniqueModel("mcp-judge");
    const tag = uniqueModel("geo-sse");
    await addFakeRules([
      { match: { model: answerer, last_tool_result: "Paris" }, reply: { text: "Paris." } },
      {
        match: { model: answerer, last_tool_result: "no capital found" },
        reply: { tool_calls: [{ name: "capital_of", arguments: { country: "France" } }] },
      },
      { match: { model: answerer, kind: "tools" }, reply: { tool_calls: [{ name: "capital_of", arguments: { country: "Atlantis" } }] } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const runId = await submitRun({
      benchmark: { name: "mcp-sse", questions: [question] },
      config: {
        answering_models: [anthropicModel("claude-agent", answerer, { mcp_urls_dict: { geo: mcpUrl("sse", tag) } })],
        parsing_models: [fakeModel("j", judge)],
      },
    });
    expect((await waitForRun(runId)).status).toBe("completed");
    const r = await fullResult(runId);
    expect(r.template.trace_messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ["assistant", ""],
      ["tool", "no capital found for Atlantis"],
      ["assistant", ""],
      ["tool", "Paris"],
      ["assistant", "Paris."],
    ]);
    expect(r.template.agent_metrics).toMatchObject({
      iterations: 3,
      tool_calls: 2,
      tools_used: ["capital_of"],
      suspect_failed_tool_calls: 1,
      suspect_failed_tools: ["capital_of"],
    });
    expect(r.template.verify_result).toBe(true);
    expect(await mcpStats(tag)).toMatchObject({ initialize: 1, calls: { capital_of: 2 }, sessions_refused: 0 });
  });

  it("an agent that keeps calling tools stops at model_call_limit: recursion limit, stage 3 autofail, no judge call", async () => {
    const answerer = uniqueModel("mcp-loop");
    const judge = uniqueModel("mcp-judge");
    const tag = uniqueModel("geo-loop");
    await addFakeRules([
      { match: { model: answerer }, reply: { tool_calls: [{ name: "capital_of", arguments: { country: "Peru" } }] } },
      { match: { model: judge }, reply: { json: { answer: "Lima" } } },
    ]);
    const agent = fakeModel("looper", answerer, {
      mcp_urls_dict: { geo: mcpUrl("mcp", tag) },
      agent_middleware: { limits: { model_call_limit: 2 } },
    });
    const runId = await submitRun({
      benchmark: { name: "mcp-loop", questions: [question] },
      config: { answering_models: [agent], parsing_models: [fakeModel("j", judge)] },
    });
    await waitForRun(runId);
    const r = await fullResult(runId);
    expect(r.template.recursion_limit_reached).toBe(true);
    expect(r.template.verify_result).toBe(false);
    expect(r.metadata.failure).toMatchObject({ category: "recursion_limit", group: "autofail", stage: "recursion_limit_autofail" });
    expect(r.metadata.completed_without_errors).toBe(true);
    // Two model turns, each with its tool result: the trace is kept.
    expect(r.template.trace_messages.map((m: { role: string }) => m.role)).toEqual(["assistant", "tool", "assistant", "tool"]);
    expect(r.template.agent_metrics).toMatchObject({ iterations: 2, tool_calls: 2 });
    expect((await fakeStats(answerer)).total).toBe(2);
    expect((await fakeStats(judge)).total).toBe(0);
  });

  it("a redelivery after the 2nd checkpoint repeats only the calls not checkpointed", async () => {
    const answerer = uniqueModel("mcp-redeliver");
    const judge = uniqueModel("mcp-judge");
    const tag = uniqueModel("geo-redeliver");
    const [final, second, first] = capitalScript(answerer);
    await addFakeRules([
      // Checkpoint 1: turn 1 asked for capital_of; checkpoint 2: its result "Paris". Then turn 2
      // is refused with a retry-after too long to wait in place: the job goes back to the queue.
      { match: { model: answerer, last_tool_result: "Paris" }, reply: { fault: "429", retry_after_s: 6 }, times: 1 },
      final,
      second,
      first,
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const runId = await submitRun({
      benchmark: { name: "mcp-redeliver", questions: [question] },
      config: {
        answering_models: [fakeModel("agent", answerer, { mcp_urls_dict: { geo: mcpUrl("mcp", tag) } })],
        parsing_models: [fakeModel("j", judge)],
      },
    });
    expect((await waitForRun(runId, ["completed", "partial", "failed"], 28_000)).status).toBe("completed");
    const r = await fullResult(runId);
    expect(r.template.verify_result).toBe(true);
    expect(r.template.agent_metrics).toMatchObject({ iterations: 3, tool_calls: 2 });
    // Delivery 1: turn 1, the refused turn 2. Delivery 2: turn 2 again, turn 3. Turn 1 is not repeated.
    expect((await fakeStats(answerer)).total).toBe(4);
    // capital_of ran once: its result was checkpointed. Each delivery opened its own session.
    expect(await mcpStats(tag)).toMatchObject({ initialize: 2, calls: { capital_of: 1, population_of: 1 } });
  }, 35_000);

  it("sends the tenant's MCP secret as a bearer token, and keeps it out of the result", async () => {
    const token = "test-mcp-token"; // what test/mcp-server accepts on /auth/
    const put = await api("/v1/secrets/GEO_MCP_TOKEN", {
      method: "PUT",
      json: { value: token, interface: "mcp", origins: [env.MCP_SERVER_URL] },
    });
    expect([200, 201]).toContain(put.status);
    const answerer = uniqueModel("mcp-auth");
    const judge = uniqueModel("mcp-judge");
    const tag = uniqueModel("geo-auth");
    await addFakeRules([...capitalScript(answerer), { match: { model: judge }, reply: { json: { answer: "Paris" } } }]);
    const agent = fakeModel("agent", answerer, { mcp_urls_dict: { geo: mcpUrl("auth", tag) }, mcp_auth_secrets: { geo: "GEO_MCP_TOKEN" } });
    const runId = await submitRun({
      benchmark: { name: "mcp-auth", questions: [question] },
      config: { answering_models: [agent], parsing_models: [fakeModel("j", judge)] },
    });
    expect((await waitForRun(runId)).status).toBe("completed");
    const r = await fullResult(runId);
    expect(r.template.verify_result).toBe(true);
    expect(JSON.stringify(r)).not.toContain(token);
    expect(await mcpStats(tag)).toMatchObject({ calls: { capital_of: 1, population_of: 1 } });
  });

  it("refuses at submit an MCP URL the outbound policy refuses, and a token that is not an MCP secret", async () => {
    const res = await api("/v1/runs", {
      method: "POST",
      json: {
        benchmark: { name: "mcp-bad", questions: [question] },
        config: {
          answering_models: [
            fakeModel("agent", uniqueModel("x"), {
              mcp_urls_dict: { lan: "http://10.0.0.7/mcp", geo: mcpUrl("mcp", "t") },
              mcp_auth_secrets: { geo: "FAKE_PROVIDER_KEY" },
            }),
          ],
          parsing_models: [fakeModel("j", uniqueModel("y"))],
        },
      },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { issues: { path: string; message: string }[] } };
    const paths = body.error.issues.map((i) => i.path);
    expect(paths).toContain("config.answering_models[0].mcp_urls_dict.lan");
    expect(paths).toContain("config.answering_models[0].mcp_auth_secrets.geo");
  });
});
