/**
 * Stage 8 — VerifyTemplate. Deterministic: primitives (or the template's custom_verify code, via
 * the codeVerifier port) compare the judge's fields with the ground truth, regex checks run on the
 * raw answer; verify_result = fields AND regex. Calls no model. A check that could not decide
 * (regex past its step budget, custom code that failed to run) makes verify_result null, which
 * classifyFailure turns into a `template_validation` (system) failure: an error, never "wrong".
 */
import { runRegexChecks, verifyFields } from "../../templates";
import { verifyWithCode } from "../../templates/code-verify";
import type { Stage } from "../types";

export const verifyTemplate: Stage = {
  name: "verify_template",
  shouldRun: (state) => !state.error && state.parsed !== undefined,
  async run(state, input, ports) {
    const template = input.question.template!;
    // custom_verify: the template's code decides the field part (see templates/code-verify.ts).
    const fields = template.custom_verify
      ? await verifyWithCode(template, template.custom_verify, state.parsed!, state.answer!.raw_llm_response, ports.codeVerifier)
      : verifyFields(template, state.parsed!, { rawTrace: state.answer!.raw_llm_response });
    const checks = template.regex ?? [];
    const regex = checks.length ? runRegexChecks(checks, state.answer!.raw_llm_response) : null;
    const undecided = fields.verify_result === null || (regex !== null && regex.errors.length > 0);
    const errors = [
      fields.field_verification_error,
      regex?.errors.length ? `Regex check failed to run: ${regex.errors.join("; ")}` : null,
    ].filter(Boolean);
    return {
      verification: {
        verify_result: undecided ? null : fields.verify_result! && (regex?.success ?? true),
        field_verification_result: fields.verify_result,
        verify_granular_result: fields.verify_granular_result,
        field_results: fields.field_results,
        field_scores: fields.field_scores,
        composition_strategy: fields.composition_strategy,
        field_verification_error: errors.length ? errors.join("; ") : null,
        regex_validations_performed: regex !== null,
        regex_validation_results: regex?.results ?? null,
        regex_validation_details: regex?.details ?? null,
        regex_overall_success: regex?.success ?? null,
        regex_extraction_results: regex?.extraction_results ?? null,
      },
    };
  },
};
