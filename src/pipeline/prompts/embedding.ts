/**
 * The embedding check's semantic-equivalence question (Karenina's utils/embedding_check.py):
 * asked only when the embeddings are already close; the judge answers exactly YES or NO.
 */
import { untrusted } from "../../lib/untrusted";
import type { Message } from "../../llm/port";

const SYSTEM = `You are an expert judge of semantic equivalence. You will see a question, the ground-truth answer and a model's answer, both as parsed JSON. Decide whether the two answers are semantically equivalent for this question: they carry the same core meaning and reach the same conclusion. Differences of wording, formatting, case or order do not matter; a different value, entity or conclusion does.

Reply with exactly one word: YES if they are semantically equivalent, NO otherwise.`;

export function buildEquivalenceMessages(question: string, groundTruth: string, response: string): Message[] {
  return [
    { role: "system", content: SYSTEM },
    {
      role: "user",
      content: `Original question: ${question}\n\nGround truth answer (JSON):\n${groundTruth}\n\nModel response (JSON):\n${untrusted(response)}\n\nAre these semantically equivalent? Answer YES or NO.`,
    },
  ];
}

/** Karenina: YES iff the reply, stripped and upper-cased, starts with "YES". */
export function isYes(reply: string): boolean {
  return reply.trim().toUpperCase().startsWith("YES");
}
