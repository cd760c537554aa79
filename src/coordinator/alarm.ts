/**
 * The coordinator's one alarm serves two clocks: the stall watch (every WATCH_EVERY_MS while the
 * run is open) and the webhook outbox (soon after new results, or a retry after a failure).
 */

export const WATCH_EVERY_MS = 5 * 60_000;

/**
 * Sets the one alarm to `at` unless it is already due sooner. Inside alarm() getAlarm is null
 * until something sets it, so a record that armed the outbox meanwhile is not pushed back.
 */
export async function alarmBy(storage: DurableObjectStorage, at: number): Promise<void> {
  const set = await storage.getAlarm();
  if (set === null || set > at) await storage.setAlarm(at);
}
