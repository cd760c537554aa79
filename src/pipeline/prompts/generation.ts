/**
 * Answer-generation messages (Karenina's `generation` task): the model's system prompt plus
 * `prompt_config.generation`, and the question, preceded by few-shot examples when configured.
 *
 * A scenario turn (src/scenarios) also sends the conversation so far, between the system message
 * and the question; as in Karenina, the model's system prompt is left out when that history
 * already carries a system message (the same speaker continues), `prompt_config.generation` never.
 */
import type { Message } from "../../llm/port";
import { type FewShotExample, formatFewShotPrompt } from "../few-shot";
import { withInstructions } from "../../core-shared/instructions";

export function buildGenerationMessages(
  question: string,
  systemPrompt: string | undefined,
  opts: { examples?: readonly FewShotExample[]; instructions?: string; history?: readonly Message[] } = {},
): Message[] {
  const messages: Message[] = [];
  const history = opts.history ?? [];
  const prompt = history.some((m) => m.role === "system") ? undefined : systemPrompt;
  const system = prompt ? withInstructions(prompt, opts.instructions) : opts.instructions;
  if (system) messages.push({ role: "system", content: system });
  messages.push(...history);
  messages.push({ role: "user", content: formatFewShotPrompt(question, opts.examples ?? []) });
  return messages;
}
