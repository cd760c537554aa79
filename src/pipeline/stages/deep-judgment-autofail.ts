/**
 * Stage 10 — DeepJudgmentAutoFail. In `full` deep judgment every attribute must be backed by a
 * verbatim excerpt of the response; attributes left without one after the retries fail the
 * answer (autofail `deep_judgment`). `reasoning_only` extracts no excerpts, so it never fires.
 */
import { logOverride } from "../overrides";
import type { Stage } from "../types";

export const deepJudgmentAutoFail: Stage = {
  name: "deep_judgment_autofail",
  shouldRun: (state) => {
    const dj = state.deep_judgment;
    return (
      !state.error &&
      !state.autofail &&
      !state.abstention?.override_applied &&
      !!dj?.deep_judgment_performed &&
      dj.deep_judgment_mode === "full" &&
      (dj.attributes_without_excerpts?.length ?? 0) > 0
    );
  },
  async run(state, input, ports) {
    const dj = state.deep_judgment!;
    const reason = `no verbatim excerpt supports: ${dj.attributes_without_excerpts!.join(", ")} (after ${dj.deep_judgment_excerpt_retry_count} excerpt retries)`;
    logOverride(ports, input, "deep_judgment_autofail", false, reason);
    return { autofail: { category: "deep_judgment", stage: "deep_judgment_autofail", reason } };
  },
};
