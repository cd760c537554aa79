/**
 * Stage 1 — ValidateTemplate. Reads the question's template; calls nothing; never reads the clock.
 * A question without a usable template fails here with `template_validation`, and every later
 * stage but FinalizeResult is skipped.
 */
import { validateRegexPattern } from "../../templates";
import type { Stage } from "../types";

export const validateTemplate: Stage = {
  name: "validate_template",
  shouldRun: () => true,
  async run(_state, input) {
    const template = input.question.template;
    if (!template) {
      return {
        error: {
          category: "template_validation",
          stage: "validate_template",
          reason: `question ${JSON.stringify(input.question.id)} has no answer template; ${input.settings.evaluation_mode} needs one`,
        },
      };
    }
    for (const check of template.regex ?? []) {
      const problem = validateRegexPattern(check.pattern);
      if (problem) {
        return {
          error: {
            category: "template_validation",
            stage: "validate_template",
            reason: `regex check ${JSON.stringify(check.name)}: ${problem}`,
          },
        };
      }
    }
    return {};
  },
};
