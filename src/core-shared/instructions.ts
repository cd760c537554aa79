/**
 * `prompt_config` (Karenina's PromptConfig): the caller's instructions for one judge task are
 * appended to that call's system text, never substituted for it.
 */
export interface PromptConfig {
  generation?: string | null;
  parsing?: string | null;
  abstention_detection?: string | null;
  sufficiency_detection?: string | null;
  rubric_evaluation?: string | null;
  agentic_parsing?: string | null;
  deep_judgment?: string | null;
}

export type PromptTask = keyof PromptConfig;

export function instructionsFor(config: PromptConfig | null | undefined, task: PromptTask): string | undefined {
  const text = config?.[task];
  return text && text.trim() ? text : undefined;
}

export function withInstructions(system: string, extra: string | undefined): string {
  return extra ? `${system}\n\n${extra}` : system;
}
