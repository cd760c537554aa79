/**
 * Dynamic rubrics: one presence-check call over every non-agentic dynamic trait. Present traits
 * are promoted into the rubric; absent ones are skipped with the reason. A trait left out by the
 * `rubric_trait_names` filter is skipped with its own reason and never checked. If the check
 * fails, no dynamic trait is promoted and each is skipped saying so.
 */
import { z } from "zod";
import { isRetryable, type LlmError, type ModelPort } from "../llm/port";
import { RUBRIC_LISTS } from "../schemas/rubric";
import { emptyLists, type TraitLists } from "./merge";
import { presenceMessages } from "./prompts";
import type { EvalLog } from "./types";

export const NOT_PRESENT = "concept not present in response";
export const FILTERED_OUT = "not selected by rubric_trait_names";

const Presence = z.object({ results: z.array(z.object({ trait_name: z.string(), present: z.union([z.boolean(), z.string()]) })) });
const PRESENCE_SCHEMA = {
  type: "object",
  title: "ConceptPresenceResult",
  properties: {
    results: {
      type: "array",
      items: {
        type: "object",
        properties: { trait_name: { type: "string" }, present: { type: "boolean" } },
        required: ["trait_name", "present"],
      },
    },
  },
  required: ["results"],
};

export interface DynamicOutcome {
  promoted: TraitLists;
  promoted_names: string[];
  skipped: Record<string, string>;
}

export async function resolveDynamic(
  dynamic: TraitLists,
  response: string,
  filter: readonly string[] | null | undefined,
  judge: ModelPort,
  log: EvalLog & { transient?: LlmError; presenceUsage?: unknown },
): Promise<DynamicOutcome> {
  const out: DynamicOutcome = { promoted: emptyLists(), promoted_names: [], skipped: {} };
  const keep = filter ? new Set(filter) : null;
  const candidates: { name: string; text: string }[] = [];
  for (const kind of RUBRIC_LISTS) {
    for (const t of dynamic[kind] as { name: string; summary?: string | null; description?: string | null }[]) {
      if (keep && !keep.has(t.name)) out.skipped[t.name] = FILTERED_OUT;
      else if (kind === "agentic_traits") out.skipped[t.name] = "agentic traits are not presence-checked";
      else candidates.push({ name: t.name, text: t.summary || t.description || "" });
    }
  }
  if (!candidates.length) return out;
  const res = await judge.structured({
    messages: presenceMessages(candidates, response),
    schemaName: "ConceptPresenceResult",
    jsonSchema: PRESENCE_SCHEMA,
    schema: Presence,
    call_site: "rubric/presence",
  });
  if (!res.ok) {
    log.warnings.push(`dynamic rubric presence check failed (${res.error.kind}): ${res.error.message}`);
    if (isRetryable(res.error) && !log.transient) log.transient = res.error;
    for (const c of candidates) out.skipped[c.name] = `presence check failed: ${res.error.kind}`;
    return out;
  }
  log.presenceUsage = res.value.usage;
  const present = new Set(
    res.value.value.results.filter((r) => r.present === true || String(r.present).toLowerCase() === "true").map((r) => r.trait_name),
  );
  for (const kind of RUBRIC_LISTS) {
    for (const t of dynamic[kind] as { name: string }[]) {
      if (!candidates.some((c) => c.name === t.name)) continue;
      if (present.has(t.name)) {
        (out.promoted[kind] as { name: string }[]).push(t);
        out.promoted_names.push(t.name);
      } else out.skipped[t.name] = NOT_PRESENT;
    }
  }
  return out;
}
