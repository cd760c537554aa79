/**
 * The secrets a run body, a stored run spec or a judge config may send, found by walking it, so
 * the key ring decrypts only those (key-ring.ts). Every model config anywhere in it (an object
 * with an `interface`: answering, parsing, embedding, rubric-trait and judge-unit models) names its
 * key as the model factory does (`requiredSecretName`), every `mcp_auth_secrets` names its tokens,
 * and the search key is always in: deep judgment and its rubric traits may search whether or not
 * the run's own search flag is set. A name in too many costs one decryption; a name left out makes
 * the ring throw when it is asked for, never a deployment key sent in a tenant key's place.
 */
import { requiredSecretName } from "../llm/factory";

/** adapters/search-tavily.ts's TAVILY_SECRET (adapters import tenants/, so not the other way; a unit test holds them equal). */
export const SEARCH_SECRET = "TAVILY_API_KEY";

const KEYED_INTERFACES = new Set(["openai", "anthropic", "openai_compatible"]);

export function secretNamesIn(value: unknown): Set<string> {
  const names = new Set<string>([SEARCH_SECRET]);
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null || seen.has(v)) continue;
    seen.add(v);
    if (Array.isArray(v)) {
      stack.push(...v);
      continue;
    }
    const o = v as Record<string, unknown>;
    if (typeof o.interface === "string" && KEYED_INTERFACES.has(o.interface)) {
      const secret = typeof o.api_key_secret === "string" ? o.api_key_secret : undefined;
      const name = requiredSecretName({ interface: o.interface as "openai", api_key_secret: secret });
      if (name !== null) names.add(name);
    }
    if (typeof o.mcp_auth_secrets === "object" && o.mcp_auth_secrets !== null) {
      for (const n of Object.values(o.mcp_auth_secrets)) if (typeof n === "string") names.add(n);
    }
    for (const child of Object.values(o)) if (typeof child === "object" && child !== null) stack.push(child);
  }
  return names;
}
