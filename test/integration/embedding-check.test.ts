/**
 * Who computes the embedding check's embeddings (src/llm/embedding-model.ts), end to end through
 * the queue, the SDK adapters and the fake LLM server: embedding_check_provider for an Anthropic
 * judge, Karenina's default model name mapped to the local OpenAI-compatible endpoint, and the 400
 * for a judge that cannot embed.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { addFakeRules, allResults, api, exactTemplate, fakeModel, fakeStats, submitRun, uniqueModel, waitForRun } from "./helpers";

const anthropicModel = (id: string, model_name: string) => ({
  id,
  interface: "anthropic",
  model_name,
  base_url: env.FAKE_LLM_URL,
  api_key_secret: "FAKE_PROVIDER_KEY",
});
const question = { id: "q", question: "What is the capital of France?", template: exactTemplate("Paris") };

async function judgeRules(answerer: string, judge: string) {
  await addFakeRules([
    { match: { model: answerer }, reply: { text: "Paris, France." } },
    { match: { model: judge, contains: "semantically equivalent" }, reply: { text: "YES" } },
    { match: { model: judge }, reply: { json: { answer: "Paris, France" } } },
  ]);
}

describe("embedding check models", () => {
  it("an Anthropic judge gets its embeddings from embedding_check_provider", async () => {
    const [answerer, judge, embedder] = [uniqueModel("emb-ans"), uniqueModel("emb-claude"), uniqueModel("emb-provider")];
    await judgeRules(answerer, judge);
    const runId = await submitRun({
      benchmark: { name: "embedding", questions: [question] },
      config: {
        answering_models: [fakeModel("a", answerer)],
        parsing_models: [anthropicModel("claude", judge)],
        embedding_check_enabled: true,
        embedding_check_provider: fakeModel("embedder", embedder),
        embedding_check_threshold: 0,
      },
    });
    await waitForRun(runId);
    const [r] = await allResults(runId);
    expect(r!.template).toMatchObject({
      embedding_check_performed: true,
      embedding_model_used: embedder,
      embedding_override_applied: true,
      verify_result: true,
    });
    expect((await fakeStats(embedder)).by_endpoint["openai.embeddings"]).toBe(1);
  });

  it("Karenina's default all-MiniLM-L6-v2 runs locally as all-minilm on the OpenAI-compatible endpoint (Workers AI when deployed)", async () => {
    const [answerer, judge] = [uniqueModel("emb-def-ans"), uniqueModel("emb-def-judge")];
    await judgeRules(answerer, judge);
    const before = (await fakeStats("all-minilm")).by_endpoint["openai.embeddings"] ?? 0;
    const runId = await submitRun({
      benchmark: { name: "embedding", questions: [question] },
      config: {
        answering_models: [fakeModel("a", answerer)],
        parsing_models: [fakeModel("j", judge)],
        embedding_check_enabled: true,
        embedding_check_threshold: 0,
      },
    });
    await waitForRun(runId);
    const [r] = await allResults(runId);
    expect(r!.template).toMatchObject({ embedding_check_performed: true, embedding_model_used: "all-minilm" });
    expect((await fakeStats("all-minilm")).by_endpoint["openai.embeddings"]).toBe(before + 1);
    expect((await fakeStats(judge)).by_endpoint["openai.embeddings"] ?? 0).toBe(0);
  });

  it("refuses a run whose Anthropic judge would have to embed (no provider, a named model)", async () => {
    const res = await api("/v1/runs", {
      method: "POST",
      json: {
        benchmark: { name: "embedding", questions: [question] },
        config: {
          answering_models: [fakeModel("a", uniqueModel("emb-400"))],
          parsing_models: [anthropicModel("claude", uniqueModel("emb-400-judge"))],
          embedding_check_enabled: true,
          embedding_check_model: "text-embedding-3-small",
        },
      },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { issues: { path: string; message: string }[] } };
    expect(body.error.issues).toEqual([
      expect.objectContaining({ path: "config.embedding_check_model", message: expect.stringContaining("set embedding_check_provider") }),
    ]);
  });
});
