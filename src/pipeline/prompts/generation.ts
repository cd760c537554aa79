/** Answer-generation messages (Karenina's `generation` task): the model's system prompt + the question. */
import type { Message } from "../../llm/port";

export function buildGenerationMessages(question: string, systemPrompt: string | undefined): Message[] {
  const messages: Message[] = [];
  if (systemPrompt) messages.push({ role: "system", content: systemPrompt });
  messages.push({ role: "user", content: question });
  return messages;
}
