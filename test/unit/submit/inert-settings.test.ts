import { describe, expect, it } from "vitest";
import { VerificationConfig } from "../../../src/schemas/verification-config";
import { inertSettingWarnings } from "../../../src/submit/inert-settings";

const base = {
  answering_models: [{ id: "m", interface: "manual", manual_answers: {} }],
  parsing_models: [{ id: "j", interface: "openai", model_name: "gpt-4.1-mini" }],
};
const warningsFor = (extra: Record<string, unknown>) => inertSettingWarnings(VerificationConfig.parse({ ...base, ...extra }));

describe("inertSettingWarnings", () => {
  it("says nothing of options left at Karenina's defaults, sent or not", () => {
    expect(warningsFor({})).toEqual([]);
    expect(
      warningsFor({
        async_enabled: true,
        max_concurrent_requests: null,
        task_ordering: "auto",
        max_requeue_count: 5,
        workspace_copy: true,
        workspace_output_exclude_patterns: [],
      }),
    ).toEqual([]);
  });

  it("names each option set away from its default, with what does its job here", () => {
    const got = warningsFor({
      max_concurrent_requests: 2,
      answerer_concurrency_limits: { m: 1 },
      async_enabled: false,
      batch_timeout_seconds: 60,
      task_ordering: "random",
      max_requeue_count: 9,
      replay_parse_on_hydration_mismatch: "strict",
      workspace_copy: false,
      workspace_cleanup: false,
      workspace_output_exclude_patterns: ["*.log"],
    });
    expect(got.map((w) => w.path)).toEqual([
      "config.max_concurrent_requests",
      "config.answerer_concurrency_limits",
      "config.async_enabled",
      "config.batch_timeout_seconds",
      "config.task_ordering",
      "config.max_requeue_count",
      "config.replay_parse_on_hydration_mismatch",
      "config.workspace_copy",
      "config.workspace_cleanup",
      "config.workspace_output_exclude_patterns",
    ]);
    expect(got[0]!.message).toContain("not applied");
    expect(got[0]!.message).toContain("`limits`");
  });
});
