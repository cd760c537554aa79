// The worker's Cron Triggers on a local stack. Deployed, Cloudflare fires each cron of wrangler.toml's
// `[triggers]` (every minute: scheduled runs, src/schedules; hourly: the retention sweep); locally
// neither workerd nor `wrangler dev` fires them by itself, so a schedule made with POST /v1/schedules
// on npm start or npm run dev never started a run. The local stack fires them itself: at the start
// of each UTC minute, every cron that matches it (src/lib/cron.ts, the parser the worker checks
// schedules with), with that minute as the event's scheduledTime, through miniflare's trigger
// route (`/cdn-cgi/local/scheduled`, which local-runtime.mjs and wrangler dev both serve).
// EDGEVAL_LOCAL_CRONS=off turns it off.
import { cronMatches, parseCron } from "../../src/lib/cron.ts";

const MINUTE = 60_000;

/** The crons of a wrangler config (`[triggers] crons`), as wrangler reads them. */
export async function configCrons(configPath) {
  const { unstable_readConfig } = await import("wrangler");
  return unstable_readConfig({ config: configPath }).triggers?.crons ?? [];
}

/**
 * Fires `fire(cron, minuteMs)` for each of `crons` that matches each minute from the next one on,
 * in order; a tick still firing when the next minute comes is not overlapped (the next one waits).
 * Returns stop(). An expression the worker's parser refuses is an error at once, not a silent gap.
 */
export function startLocalCron({ crons, fire, now = Date.now, onError = () => {} }) {
  const parsed = crons.map((expr) => {
    const p = parseCron(expr);
    if (!p.ok) throw new Error(`cron "${expr}": ${p.message}`);
    return { expr, cron: p.cron };
  });
  let timer;
  let stopped = false;
  const schedule = () => {
    if (stopped || parsed.length === 0) return;
    const next = (Math.floor(now() / MINUTE) + 1) * MINUTE;
    timer = setTimeout(() => tick(next), next - now());
    // The stack's process lives for its server, not for this timer.
    timer.unref?.();
  };
  const tick = async (minute) => {
    for (const { expr, cron } of parsed) {
      if (stopped || !cronMatches(cron, minute)) continue;
      try {
        await fire(expr, minute);
      } catch (err) {
        onError(expr, err);
      }
    }
    schedule();
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** Fires one cron through miniflare's trigger route at `origin`; a handler that threw is an error. */
export async function fireScheduled(origin, cron, minuteMs) {
  const url = `${origin}/cdn-cgi/local/scheduled?cron=${encodeURIComponent(cron)}&time=${minuteMs}`;
  const res = await fetch(url, { signal: AbortSignal.timeout(55_000) });
  const outcome = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${outcome.slice(0, 200)}`);
}
