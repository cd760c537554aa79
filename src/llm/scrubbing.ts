/**
 * Secrets out of model output (issue 16 item 8). A server at an allowed origin that echoes the key
 * it was sent (or a model told a tenant's secret) would otherwise get it stored in the result, the
 * coordinator's tables, the R2 result and the response cache: errors were scrubbed, output was
 * not. This port sits right on the adapter (src/adapters/edge-models.ts), under the retries and
 * the cache, so every copy made later is of scrubbed output: texts, structured values, tool-call
 * arguments, logprob tokens, and the message and raw output of errors.
 */
import { type ModelPort, wrapEveryCall } from "./port";

export const REDACTED = "[redacted]";
/** Shorter strings are not treated as secrets: replacing them would garble ordinary text. */
const MIN_SECRET_LENGTH = 8;

/** `value` with every occurrence of every secret replaced, at any depth; the same object when nothing changed. */
export function scrubDeep<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") {
      let out = v;
      for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
      return out;
    }
    if (Array.isArray(v)) {
      const mapped = v.map(walk);
      return mapped.some((x, i) => x !== v[i]) ? mapped : v;
    }
    if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      const mapped = entries.map(([k, x]) => [k, walk(x)] as const);
      return mapped.some(([, x], i) => x !== entries[i]![1]) ? Object.fromEntries(mapped) : v;
    }
    return v;
  };
  return walk(value) as T;
}

export function scrubbingPort(inner: ModelPort, secrets: readonly (string | undefined)[]): ModelPort {
  // Longest first, so a secret that contains another is replaced whole.
  const list = [...new Set(secrets.filter((s): s is string => typeof s === "string" && s.length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length,
  );
  if (list.length === 0) return inner;
  return wrapEveryCall(inner, async (call) => scrubDeep(await call(), list));
}
