/** Lists of origins in vars (comma- or space-separated URLs; only their origins count). */

/** The origins of the URLs in `raw`; entries that are not URLs allow nothing. */
export function parseOrigins(raw: unknown): Set<string> {
  const origins = new Set<string>();
  if (typeof raw !== "string") return origins;
  for (const entry of raw.split(/[\s,]+/)) {
    if (!entry) continue;
    try {
      origins.add(new URL(entry).origin);
    } catch {
      // not a URL: it allows nothing
    }
  }
  return origins;
}
