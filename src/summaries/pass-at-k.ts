/**
 * pass@k and pass^k of one item (a question answered by one model pair across replicates), from
 * n graded tries of which c passed (pure):
 *   pass@k = 1 − C(n−c, k) / C(n, k)   the chance that at least one of k tries drawn without
 *                                      replacement passes (Chen et al. 2021's unbiased estimator)
 *   pass^k = C(c, k) / C(n, k)         the chance that all k of them pass (τ-bench's pass^k)
 * Both are undefined (null) when k > n: fewer graded tries than k say nothing about k tries.
 * The ratios are computed as products of k factors, so no binomial coefficient is ever formed
 * (C(1000, 500) overflows a double).
 */

/** C(a, k) / C(n, k) for 0 ≤ a ≤ n, k ≤ n: ∏_{i<k} (a − i) / (n − i). */
function binomialRatio(a: number, n: number, k: number): number {
  let r = 1;
  for (let i = 0; i < k; i++) {
    if (a - i <= 0) return 0;
    r *= (a - i) / (n - i);
  }
  return r;
}

function checkArgs(n: number, c: number, k: number): void {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || n < 0 || c < 0 || c > n || k < 1) {
    throw new RangeError(`pass@k needs integers 0 ≤ c ≤ n and k ≥ 1 (n=${n}, c=${c}, k=${k})`);
  }
}

export function passAtK(n: number, c: number, k: number): number | null {
  checkArgs(n, c, k);
  if (k > n) return null;
  return 1 - binomialRatio(n - c, n, k);
}

export function passHatK(n: number, c: number, k: number): number | null {
  checkArgs(n, c, k);
  if (k > n) return null;
  return binomialRatio(c, n, k);
}

/**
 * A group's pass@k (or pass^k) for k = 1..maxK: the mean over its items that have at least k
 * graded tries; null for a k no item reaches. Keys are the k as strings, as JSON has them.
 */
export function meanOverItems(
  items: readonly { n: number; c: number }[],
  maxK: number,
  estimator: (n: number, c: number, k: number) => number | null,
): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (let k = 1; k <= maxK; k++) {
    let sum = 0;
    let count = 0;
    for (const it of items) {
      const v = estimator(it.n, it.c, k);
      if (v === null) continue;
      sum += v;
      count++;
    }
    out[String(k)] = count > 0 ? sum / count : null;
  }
  return out;
}
