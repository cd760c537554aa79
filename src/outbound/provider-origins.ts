/**
 * The origins of the services edgeval calls by default. Their error text (scrubbed, bounded) may
 * reach a caller; any other origin's may not (guarded-fetch.ts). A provider key goes to its own
 * provider's origin (src/llm/key-origins.ts).
 */
export const PROVIDER_ORIGINS: Readonly<Record<string, string>> = {
  openai: "https://api.openai.com",
  anthropic: "https://api.anthropic.com",
};

/** Deep judgment's search (src/adapters/search-tavily.ts). */
export const TAVILY_ORIGIN = "https://api.tavily.com";
