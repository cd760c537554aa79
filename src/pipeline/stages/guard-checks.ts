/**
 * Stages 5 AbstentionCheck and 6 SufficiencyCheck: one judge call each, before parsing, on the
 * same input the parser would read. A positive finding forces verify_result false and skips
 * parsing (the spec's skip cascade); a judge that fails is non-fatal: a warning, no verdict.
 */
import { z } from "zod";
import { buildJudgeSchema, judgeVisibleFields } from "../../templates";
import { buildAbstentionMessages, buildSufficiencyMessages } from "../prompts/guards";
import { instructionsFor } from "../../core-shared/instructions";
import { checkFailed, logOverride } from "../overrides";
import type { Stage } from "../types";

/** Pydantic reads "true"/"false" as booleans from a JSON reply; so do we. */
const laxBoolean = z.union([z.boolean(), z.enum(["true", "false", "True", "False"]).transform((v) => v.toLowerCase() === "true")]);
const AbstentionResult = z.object({ reasoning: z.string(), abstention_detected: laxBoolean });
const SufficiencyResult = z.object({ reasoning: z.string(), sufficient: laxBoolean });

const objectSchema = (props: Record<string, unknown>) => ({
  type: "object",
  properties: props,
  required: Object.keys(props),
  additionalProperties: false,
});

export const abstentionCheck: Stage = {
  name: "abstention_check",
  shouldRun: (state, input) =>
    input.settings.abstention_enabled === true &&
    !state.error &&
    state.evaluation !== undefined &&
    state.autofail?.category !== "recursion_limit",
  async run(state, input, ports) {
    const messages = buildAbstentionMessages(
      input.question.question,
      state.evaluation!.text,
      instructionsFor(input.settings.prompt_config, "abstention_detection"),
    );
    const res = await ports.judge.structured({
      messages,
      call_site: "abstention_check",
      schemaName: "AbstentionResult",
      jsonSchema: objectSchema({ reasoning: { type: "string" }, abstention_detected: { type: "boolean" } }),
      schema: AbstentionResult,
    });
    if (!res.ok) {
      return {
        ...checkFailed(
          ports,
          state,
          "abstention_check_failed",
          `abstention check failed (${res.error.kind}): ${res.error.message}`,
          res.error,
        ),
        abstention: { performed: false, detected: null, override_applied: false, reasoning: null },
      };
    }
    const { reasoning, abstention_detected } = res.value.value;
    if (abstention_detected) logOverride(ports, input, "abstention_check", false, "the model abstained");
    return {
      abstention: { performed: true, detected: abstention_detected, override_applied: abstention_detected, reasoning },
      usage: { ...state.usage, abstention_check: res.value.usage },
    };
  },
};

export const sufficiencyCheck: Stage = {
  name: "sufficiency_check",
  shouldRun: (state, input) =>
    input.settings.sufficiency_enabled === true &&
    !state.error &&
    state.evaluation !== undefined &&
    !state.autofail &&
    !state.abstention?.override_applied,
  async run(state, input, ports) {
    // Karenina shows the strict Answer schema here: every judge-visible field is required.
    const template = input.question.template!;
    const { jsonSchema } = buildJudgeSchema(template);
    const required = judgeVisibleFields(template).map((f) => f.name);
    const messages = buildSufficiencyMessages(
      input.question.question,
      state.evaluation!.text,
      { ...jsonSchema, required },
      instructionsFor(input.settings.prompt_config, "sufficiency_detection"),
    );
    const res = await ports.judge.structured({
      messages,
      call_site: "sufficiency_check",
      schemaName: "SufficiencyResult",
      jsonSchema: objectSchema({ reasoning: { type: "string" }, sufficient: { type: "boolean" } }),
      schema: SufficiencyResult,
    });
    if (!res.ok) {
      return {
        ...checkFailed(
          ports,
          state,
          "sufficiency_check_failed",
          `sufficiency check failed (${res.error.kind}): ${res.error.message}`,
          res.error,
        ),
        sufficiency: { performed: false, detected: null, override_applied: false, reasoning: null },
      };
    }
    const { reasoning, sufficient } = res.value.value;
    if (!sufficient) logOverride(ports, input, "sufficiency_check", false, "the response cannot fill every required field");
    return {
      sufficiency: { performed: true, detected: sufficient, override_applied: !sufficient, reasoning },
      usage: { ...state.usage, sufficiency_check: res.value.usage },
    };
  },
};
