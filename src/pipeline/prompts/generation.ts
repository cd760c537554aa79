/**
 * Answer-generation messages (Karenina's `generation` task): the model's system prompt plus
 * `prompt_config.generation`, and the question, preceded by few-shot examples when configured.
 */
import type { Message } from "../../llm/port";
import { type FewShotExample, formatFewShotPrompt } from "../few-shot";
import { withInstructions } from "../../core-shared/instructions";

export function buildGenerationMessages(
  question: string,
  systemPrompt: string | undefined,
  opts: { examples?: readonly FewShotExample[]; instructions?: string } = {},
): Message[] {
  const messages: Message[] = [];
  const system = systemPrompt ? withInstructions(systemPrompt, opts.instructions) : opts.instructions;
  if (system) messages.push({ role: "system", content: system });
  messages.push({ role: "user", content: formatFewShotPrompt(question, opts.examples ?? []) });
  return messages;
}
