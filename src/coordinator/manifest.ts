/**
 * A run's manifest, for reproducing it: edgeval's version, the versions of the prompts its
 * settings use, and each configured model with what its provider reported it ran
 * (`actual_models`: the `model` field of the responses, e.g. "gpt-4o-2024-08-06" for "gpt-4o").
 *
 * The static part is fixed at submit (`runManifest`, kept by the coordinator); the reported models
 * are read from the usage the run recorded (`withActualModels`), so they fill in as jobs finish.
 */
import pkg from "../../package.json";
import { ANSWER_STAGE, type UsageRowModel } from "./cost";
import { PROMPTS_VERSION } from "../judges/prompts";
import { GUARD_PROMPT_VERSION } from "../pipeline/prompts/guards";
import { PARSING_PROMPT_VERSION } from "../pipeline/prompts/parsing";
import type { RunSpec } from "../storage/run-spec";
import type { z } from "zod";
import type { StoredRunManifest } from "../schemas/run-views";

export const EDGEVAL_VERSION: string = pkg.version;

export type RunManifest = z.infer<typeof StoredRunManifest>;
export type ManifestModel = RunManifest["models"][number];

export function runManifest(spec: Pick<RunSpec, "answering_models" | "parsing_models" | "settings" | "questions">): RunManifest {
  const s = spec.settings;
  const prompt_versions: Record<string, string> = {};
  if (s.evaluation_mode !== "rubric_only") prompt_versions.parsing = PARSING_PROMPT_VERSION;
  if (s.abstention_enabled || s.sufficiency_enabled) prompt_versions.guards = GUARD_PROMPT_VERSION;
  const compound =
    (s.global_rubric?.compound_traits?.length ?? 0) > 0 || spec.questions.some((q) => (q.rubric?.compound_traits?.length ?? 0) > 0);
  if (compound) prompt_versions.judges = PROMPTS_VERSION;
  const model =
    (role: ManifestModel["role"]) =>
    (m: { id: string; interface: string; model_name: string }): ManifestModel => ({
      id: m.id,
      role,
      interface: m.interface,
      model_name: m.model_name,
    });
  return {
    edgeval_version: EDGEVAL_VERSION,
    prompt_versions,
    models: [...spec.answering_models.map(model("answering")), ...spec.parsing_models.map(model("parsing"))],
  };
}

/** The stage whose calls go to the embedding model, not to the parsing model it is filed under. */
const EMBEDDING_STAGE = "embedding_check";

/**
 * Each model with the names its provider reported: an answering model's from its answers, a
 * parsing model's from its judging stages (the embedding check's model is another model).
 */
export function withActualModels(
  manifest: RunManifest,
  rows: readonly UsageRowModel[],
): RunManifest & { models: (ManifestModel & { actual_models: string[] })[] } {
  return {
    ...manifest,
    models: manifest.models.map((m) => {
      const names = new Set<string>();
      for (const r of rows) {
        const mine =
          m.role === "answering"
            ? r.stage === ANSWER_STAGE && r.answering_id === m.id
            : r.stage !== ANSWER_STAGE && r.stage !== EMBEDDING_STAGE && r.parsing_id === m.id;
        if (mine) names.add(r.model.slice(r.model.indexOf(":") + 1));
      }
      return { ...m, actual_models: [...names].sort() };
    }),
  };
}
