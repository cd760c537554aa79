/**
 * A checkpoint export's warnings (what Karenina's format cannot carry: a compound trait, a
 * JavaScript verify) travel with the JSON-LD file as a response header, so the caller learns what
 * was left out by name and not only by count.
 */

/** Header budget for the texts: proxies commonly refuse responses whose headers pass 8 KB. */
export const WARNINGS_HEADER_BYTES = 6_000;

/** A JSON value in ASCII (a header value must be): every other character as a \uXXXX escape. */
const asciiJson = (v: unknown) =>
  JSON.stringify(v).replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** The warnings as a JSON array, cut to the budget with "… and N more" for the rest. */
export function warningsHeader(warnings: string[], budget = WARNINGS_HEADER_BYTES): string {
  const kept: string[] = [];
  for (const [i, w] of warnings.entries()) {
    const rest = warnings.length - i - 1;
    if (asciiJson([...kept, w, ...(rest ? [`… and ${rest} more`] : [])]).length > budget)
      return asciiJson([...kept, `… and ${warnings.length - i} more`]);
    kept.push(w);
  }
  return asciiJson(kept);
}
