/**
 * What a result records about a model (Karenina's ModelIdentity) and the two strings Karenina
 * derives from it, `canonical_key` (result ids hash it) and `display_string` (its exports show it).
 */
import { z } from "zod";
import type { ModelConfig } from "./model-config";

/**
 * Karenina's `ModelIdentity`: what a result records about a model. `config_id` is the config's
 * id when it differs from the model name; `tools` are the MCP server names, sorted (an answering
 * agent's; [] for every other model).
 */
export const ModelIdentity = z.strictObject({
  interface: z.string(),
  model_name: z.string(),
  tools: z.array(z.string()).default([]),
  config_id: z.string().nullish(),
});
export type ModelIdentity = z.output<typeof ModelIdentity>;

export function modelIdentity(model: ModelConfig): ModelIdentity {
  return {
    interface: model.interface,
    model_name: model.model_name,
    tools: Object.keys(model.mcp_urls_dict ?? {}).sort(),
    config_id: model.id !== model.model_name ? model.id : null,
  };
}

function asIdentity(model: ModelConfig | ModelIdentity): ModelIdentity {
  return "tools" in model ? model : modelIdentity(model);
}

/**
 * Karenina's `canonical_key`: `interface:model_name:tools` or, when the id differs from the
 * model name, `interface:model_name:id:tools`; tools sorted and joined by `|`. With no tools
 * (always, in edgeval) the key ends in `:` — e.g. "openai:gpt-4o:" or "anthropic:claude-haiku-4-5:judge:".
 */
export function canonicalKey(model: ModelConfig | ModelIdentity): string {
  const m = asIdentity(model);
  const tools = [...m.tools].sort().join("|");
  return m.config_id ? `${m.interface}:${m.model_name}:${m.config_id}:${tools}` : `${m.interface}:${m.model_name}:${tools}`;
}

/** Karenina's `display_string`: "interface:model_name", then " (id)" and " +[tool, …]" when present. */
export function displayString(model: ModelConfig | ModelIdentity): string {
  const m = asIdentity(model);
  const base = `${m.interface}:${m.model_name}${m.config_id ? ` (${m.config_id})` : ""}`;
  return m.tools.length ? `${base} +[${m.tools.join(", ")}]` : base;
}
