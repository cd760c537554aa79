/**
 * Stage 1 — ValidateTemplate. Reads the question's template; calls nothing; never reads the clock.
 * A question without a usable template fails here with `template_validation`, and every later
 * stage but FinalizeResult is skipped.
 */
import type { AnswerTemplate } from "../../templates/template-schema";
import { validateRegexPattern } from "../../templates";
import { pythonSubsetProblem } from "../../templates/python-subset";
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
    const problem = templateProblem(template);
    return problem ? { error: { category: "template_validation", stage: "validate_template", reason: problem } } : {};
  },
};

/** What makes a template unusable before any model is called: a regex or Python code we cannot run. */
function templateProblem(template: AnswerTemplate): string | null {
  for (const check of template.regex ?? []) {
    const problem = validateRegexPattern(check.pattern);
    if (problem) return `regex check ${JSON.stringify(check.name)}: ${problem}`;
  }
  const code = template.custom_verify;
  if (code?.language === "python") {
    const problem = pythonSubsetProblem(code.source);
    if (problem) return `custom_verify (python): ${problem}`;
  }
  return null;
}
