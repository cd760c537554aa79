/**
 * When a delivery is attempted: at 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after the
 * previous attempt, each delay ±20 % at random (so receivers coming back after an outage are not
 * hit by every sender at the same second); after the eighth failure the delivery is `failed`.
 * `scale` (the WEBHOOK_RETRY_SCALE var, parsed in src/config.ts) shortens the whole schedule in tests.
 */
export const RETRY_DELAYS_S = [0, 5, 300, 1800, 7200, 18000, 36000, 36000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length;

/** Milliseconds to wait before attempt `step` (0-based) of a schedule, or null once it is spent. */
export function delayBeforeAttempt(step: number, scale: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_S[step];
  if (base === undefined) return null;
  const jitter = 0.8 + 0.4 * random();
  return Math.round(base * 1000 * jitter * scale);
}
