/**
 * A row's `updated_at` used as its version: a write applies only to the row as read (`WHERE
 * updated_at = <read>`), so two read-modify-writes at once cannot undo each other. For that every
 * write must move the value: `now`, or 1 ms past the previous one when the clock has not passed it.
 */
export function nextUpdatedAt(now: number, previous: string): string {
  return new Date(Math.max(now, Date.parse(previous) + 1)).toISOString();
}
