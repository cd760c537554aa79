/**
 * Stage 12 — DeepJudgmentRubricAutoFail. Whenever deep judgment ran for rubric traits and a
 * trait was left without a verbatim excerpt after its retries, the answer fails (autofail
 * `deep_judgment_rubric`). Unlike Karenina, this does not also need template deep judgment on.
 * Skipped after an abstention (it takes priority) or an earlier autofail (the first one stands).
 */
import { logOverride } from "../overrides";
import type { Stage } from "../types";

export const deepJudgmentRubricAutoFail: Stage = {
  name: "deep_judgment_rubric_autofail",
  shouldRun: (state) => {
    const dj = state.deep_judgment_rubric;
    return (
      !state.error &&
      !state.autofail &&
      !state.abstention?.override_applied &&
      !!dj?.deep_judgment_rubric_performed &&
      (dj.traits_without_valid_excerpts?.length ?? 0) > 0
    );
  },
  async run(state, input, ports) {
    const dj = state.deep_judgment_rubric!;
    const retries = dj.traits_without_valid_excerpts!.map((t) => `${t}: ${dj.trait_metadata?.[t]?.excerpt_retry_count ?? 0} retries`);
    const reason = `no verbatim excerpt supports rubric traits: ${retries.join(", ")}`;
    logOverride(ports, input, "deep_judgment_rubric_autofail", false, reason);
    return { autofail: { category: "deep_judgment_rubric", stage: "deep_judgment_rubric_autofail", reason } };
  },
};
