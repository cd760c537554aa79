/**
 * Scripted ports stand for a model behind the edge's chain with answer delimiting off
 * (src/llm/delimiting.ts): they see prompts as Karenina writes them, the untrusted-text marks
 * removed. The injection test (test/unit/pipeline/injection.test.ts) runs with delimiting on.
 */
import { delimit } from "../../src/lib/untrusted";
import type { Message } from "../../src/llm/port";

export const plainMessages = <M extends Message>(messages: readonly M[]): M[] =>
  messages.map((m) => ({ ...m, content: delimit(m.content, null) }));
export const plainRequest = <R extends { messages: Message[] }>(req: R): R => ({ ...req, messages: plainMessages(req.messages) });
