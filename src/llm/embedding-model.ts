/**
 * Which model computes the embedding check's embeddings (stage 9), from the run's config:
 *
 * 1. `embedding_check_provider` (a model config) when given: that provider, asked for
 *    `embedding_check_model` (or, when that is left at Karenina's default name, the provider's own
 *    `model_name`). This is how an Anthropic judge gets embeddings: Anthropic has no embeddings API.
 * 2. Karenina's default `embedding_check_model`, "all-MiniLM-L6-v2" (a sentence-transformers model
 *    Karenina runs in-process; no hosted API serves it under that name), maps to a documented
 *    default: deployed, Workers AI `@cf/baai/bge-small-en-v1.5` through the AI binding (a 384-dim
 *    English sentence embedding like MiniLM-L6); locally (EDGEVAL_ENV=local), an OpenAI-compatible
 *    endpoint at EDGEVAL_EMBEDDING_BASE_URL (default Ollama's http://127.0.0.1:11434/v1) serving
 *    `all-minilm` (Ollama's name for all-MiniLM-L6-v2).
 * 3. Any other name: the judge's own provider serves it, unless that provider has no embeddings
 *    (Anthropic, manual): then the run is refused, naming embedding_check_provider as the fix.
 * Pure: the edge passes `local` and the env's base URL.
 */
import type { ModelConfig } from "../schemas/model-config";

export const KARENINA_DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2";
export const WORKERS_AI_EMBEDDING_MODEL = "@cf/baai/bge-small-en-v1.5";
export const LOCAL_EMBEDDING_BASE_URL = "http://127.0.0.1:11434/v1";
export const LOCAL_EMBEDDING_MODEL = "all-minilm";

export interface EmbeddingSettings {
  model: string;
  provider?: ModelConfig | null;
}

export interface EmbeddingPlace {
  /** A local development stack (EDGEVAL_ENV=local). */
  local: boolean;
  /** EDGEVAL_EMBEDDING_BASE_URL, when set. */
  localBaseUrl?: string;
}

export type EmbeddingModel = { config: ModelConfig; model: string } | { error: string };

const NO_EMBEDDINGS: readonly string[] = ["anthropic", "manual"];

// One object per default, so the edge's per-config port cache serves every job with one port.
const WORKERS_AI_DEFAULT: ModelConfig = { id: "embedding", interface: "workers_ai", model_name: WORKERS_AI_EMBEDDING_MODEL, max_tokens: 1 };
const localDefaults = new Map<string, ModelConfig>();
function localDefault(base_url: string): ModelConfig {
  let m = localDefaults.get(base_url);
  if (!m)
    localDefaults.set(
      base_url,
      (m = { id: "embedding", interface: "openai_compatible", model_name: LOCAL_EMBEDDING_MODEL, base_url, max_tokens: 1 }),
    );
  return m;
}

export function embeddingModel(settings: EmbeddingSettings, judge: ModelConfig, place: EmbeddingPlace): EmbeddingModel {
  const kareninaDefault = settings.model === KARENINA_DEFAULT_EMBEDDING_MODEL;
  if (settings.provider) {
    return { config: settings.provider, model: kareninaDefault ? settings.provider.model_name : settings.model };
  }
  if (kareninaDefault) {
    const config = place.local ? localDefault(place.localBaseUrl ?? LOCAL_EMBEDDING_BASE_URL) : WORKERS_AI_DEFAULT;
    return { config, model: config.model_name };
  }
  if (NO_EMBEDDINGS.includes(judge.interface)) {
    return {
      error: `embedding_check_model "${settings.model}" would be asked of judge ${judge.id} (${judge.interface}), which has no embeddings API; set embedding_check_provider to a model config that serves embeddings (e.g. OpenAI or Workers AI)`,
    };
  }
  return { config: judge, model: settings.model };
}
