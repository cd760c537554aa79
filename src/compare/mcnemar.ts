/**
 * McNemar's exact test (pure): of n = b + c discordant pairs (b went pass → fail, c fail → pass),
 * under H0 each is either way with probability ½, so the two-sided p-value is
 *   p = min(1, 2 · Σ_{i=0..min(b,c)} C(n, i) / 2^n)
 * (the binomial tail doubled, as Fisher's/“exact” McNemar is usually reported). No discordant pair:
 * p = 1. Computed in log space so n in the tens of thousands neither overflows nor underflows to 0
 * before the sum is taken.
 */
export function mcnemarExact(b: number, c: number): number {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0) throw new RangeError(`McNemar needs counts ≥ 0 (b=${b}, c=${c})`);
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  // log C(n, i) − n·log 2, summed with the largest term factored out (log-sum-exp).
  const logs: number[] = [];
  let logC = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
    logs.push(logC - n * Math.LN2);
  }
  const max = Math.max(...logs);
  const tail = Math.exp(max) * logs.reduce((s, l) => s + Math.exp(l - max), 0);
  return Math.min(1, 2 * tail);
}
