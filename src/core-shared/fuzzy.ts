/**
 * Excerpt validation (Karenina's utils/trace_fuzzy_match.py): whitespace collapsed on both
 * sides, then Python difflib's `SequenceMatcher(None, excerpt, response).find_longest_match`;
 * similarity = match length / excerpt length.
 *
 * difflib is reproduced exactly, including its "autojunk" heuristic: when the response has 200+
 * characters, characters occurring more than 1% of the time ("popular") cannot seed a match,
 * only extend one. So the score is the longest run seeded by rarer characters and grown over
 * equal neighbours — for a verbatim quote that is its whole length; for an invented one it is
 * short. Same inputs, same score as Karenina.
 */

export function collapseWhitespace(text: string): string {
  return text.split(/\s+/).filter(Boolean).join(" ");
}

/** [similarity in 0..1]; 0 for an empty excerpt or response. */
export function excerptSimilarity(excerpt: string, response: string): number {
  const a = collapseWhitespace(excerpt);
  const b = collapseWhitespace(response);
  if (!a || !b) return 0;
  return longestMatch(a, b) / a.length;
}

/** difflib.SequenceMatcher(None, a, b).find_longest_match(0, len(a), 0, len(b)).size */
export function longestMatch(a: string, b: string): number {
  const b2j = indexPositions(b);
  let besti = 0;
  let bestj = 0;
  let best = 0;
  let j2len = new Map<number, number>();
  for (let i = 0; i < a.length; i++) {
    const next = new Map<number, number>();
    for (const j of b2j.get(a[i]!) ?? []) {
      const k = (j2len.get(j - 1) ?? 0) + 1;
      next.set(j, k);
      if (k > best) [besti, bestj, best] = [i - k + 1, j - k + 1, k];
    }
    j2len = next;
  }
  // Extend over equal neighbours (popular characters are not junk: isjunk is None).
  while (besti > 0 && bestj > 0 && a[besti - 1] === b[bestj - 1]) [besti, bestj, best] = [besti - 1, bestj - 1, best + 1];
  while (besti + best < a.length && bestj + best < b.length && a[besti + best] === b[bestj + best]) best++;
  return best;
}

/** Positions of each character in b, minus difflib's popular characters when b has ≥ 200. */
function indexPositions(b: string): Map<string, number[]> {
  const b2j = new Map<string, number[]>();
  for (let j = 0; j < b.length; j++) {
    const list = b2j.get(b[j]!);
    if (list) list.push(j);
    else b2j.set(b[j]!, [j]);
  }
  if (b.length >= 200) {
    const limit = Math.floor(b.length / 100) + 1;
    for (const [ch, list] of b2j) if (list.length > limit) b2j.delete(ch);
  }
  return b2j;
}
