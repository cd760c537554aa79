/**
 * Karenina's `generate_question_id`: the id a question without an `@id` gets,
 * `urn:uuid:question-<slug of the text, 50 chars>-<md5(text)[:8]>` (MD5 as a content id only).
 */
import { md5Hex } from "../lib/md5";

export function kareninaQuestionId(text: string): string {
  const prefix = text.toLowerCase().replaceAll(" ", "-").replaceAll("?", "").replaceAll(".", "").replaceAll(",", "");
  // Python slices code points, not UTF-16 units.
  return `urn:uuid:question-${[...prefix].slice(0, 50).join("")}-${md5Hex(text).slice(0, 8)}`;
}
