/**
 * Structured logs (one JSON line each). Callers pass ids and counts, never configs or bodies:
 * nothing logged can carry a secret.
 */
function emit(level: "info" | "warn", event: string, fields?: Record<string, unknown>) {
  const line = JSON.stringify({ level, event, ...fields });
  if (level === "warn") console.warn(line);
  else console.log(line);
}

export const log = {
  info: (event: string, fields?: Record<string, unknown>) => emit("info", event, fields),
  warn: (event: string, fields?: Record<string, unknown>) => emit("warn", event, fields),
};
