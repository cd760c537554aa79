/**
 * Where webhooks may be sent. The outbound URL policy of issue 16 was not on main when this was
 * written, so this is the minimal rule, in one place to be replaced by it: https only, except in
 * local mode (src/env.ts isLocalMode), where a developer's receiver on http://127.0.0.1 is allowed.
 * Checked when an endpoint is set and again before every attempt.
 */
import { isLocalMode } from "../env";

/** Why `url` may not receive webhooks here, or null when it may. */
export function webhookUrlProblem(url: string, env: { EDGEVAL_ENV?: unknown }): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "url must be an absolute URL";
  }
  if (parsed.protocol === "https:") return null;
  if (parsed.protocol === "http:" && isLocalMode(env)) return null;
  return "webhooks go only to https URLs (http is allowed in local mode only)";
}
