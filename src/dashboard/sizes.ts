/**
 * A byte count for people (pure): "812 bytes", "12.3 kB", "4.57 MB" (SI units, 1 kB = 1,000 bytes, as
 * browsers' download lists and most file managers show them), three significant digits; and the exact
 * count with thousands separators, for the `title` next to it. No Intl: the same text in every runtime.
 */
const UNITS = ["kB", "MB", "GB", "TB"] as const;

export function humanBytes(n: number): string {
  if (n < 1000) return `${n} ${n === 1 ? "byte" : "bytes"}`;
  let v = n;
  let unit = -1;
  // 999,500 bytes is "1.00 MB", not "1000 kB": the unit moves up before rounding would reach 1,000.
  while (v >= 999.5 && unit < UNITS.length - 1) {
    v /= 1000;
    unit++;
  }
  return `${v.toPrecision(3)} ${UNITS[unit]}`;
}

/** "1,234,567 bytes". */
export function exactBytes(n: number): string {
  return `${String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",")} ${n === 1 ? "byte" : "bytes"}`;
}
