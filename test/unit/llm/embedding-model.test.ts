import { describe, expect, it } from "vitest";
import { embeddingModel, KARENINA_DEFAULT_EMBEDDING_MODEL } from "../../../src/llm/embedding-model";
import { ModelConfig } from "../../../src/schemas/model-config";

const openaiJudge = ModelConfig.parse({ id: "j", interface: "openai", model_name: "gpt-4.1-mini" });
const anthropicJudge = ModelConfig.parse({ id: "c", interface: "anthropic", model_name: "claude-haiku-4-5" });
const embedder = ModelConfig.parse({ id: "e", interface: "openai", model_name: "text-embedding-3-small" });
const deployed = { local: false };
const local = { local: true };

// Karenina's VerificationConfig.embedding_check_model defaults to "all-MiniLM-L6-v2" (karenina
// schemas/verification/config.py:42 DEFAULT_EMBEDDING_MODEL, :144 the field; a sentence-transformers model it
// loads in-process, with the EMBEDDING_CHECK_MODEL env var as the fallback, utils/embedding_check.py:123);
// the similarity reads the env var and the config field only relabels the result (embedding_check.py:336-339).
// edgeval honours the field and maps the default name to a hosted model.
describe("embedding model for the embedding check", () => {
  it("Karenina's default name maps to Workers AI when deployed and to a local OpenAI-compatible endpoint locally", () => {
    expect(embeddingModel({ model: KARENINA_DEFAULT_EMBEDDING_MODEL }, openaiJudge, deployed)).toEqual({
      config: expect.objectContaining({ interface: "workers_ai", model_name: "@cf/baai/bge-small-en-v1.5" }),
      model: "@cf/baai/bge-small-en-v1.5",
    });
    expect(embeddingModel({ model: KARENINA_DEFAULT_EMBEDDING_MODEL }, anthropicJudge, local)).toEqual({
      config: expect.objectContaining({ interface: "openai_compatible", base_url: "http://127.0.0.1:11434/v1", model_name: "all-minilm" }),
      model: "all-minilm",
    });
    expect(
      embeddingModel({ model: KARENINA_DEFAULT_EMBEDDING_MODEL }, openaiJudge, { local: true, localBaseUrl: "http://127.0.0.1:9797/v1" }),
    ).toMatchObject({
      config: { base_url: "http://127.0.0.1:9797/v1" },
    });
  });

  it("embedding_check_provider wins, asked for embedding_check_model (or its own model_name when that is Karenina's default)", () => {
    expect(embeddingModel({ model: KARENINA_DEFAULT_EMBEDDING_MODEL, provider: embedder }, anthropicJudge, deployed)).toEqual({
      config: embedder,
      model: "text-embedding-3-small",
    });
    expect(embeddingModel({ model: "text-embedding-3-large", provider: embedder }, anthropicJudge, deployed)).toEqual({
      config: embedder,
      model: "text-embedding-3-large",
    });
  });

  it("another name is asked of the judge's provider; an Anthropic judge without a provider is refused, naming the fix", () => {
    expect(embeddingModel({ model: "text-embedding-3-small" }, openaiJudge, deployed)).toEqual({
      config: openaiJudge,
      model: "text-embedding-3-small",
    });
    const r = embeddingModel({ model: "text-embedding-3-small" }, anthropicJudge, deployed);
    expect(r).toEqual({ error: expect.stringContaining("set embedding_check_provider") });
  });
});
