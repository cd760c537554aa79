/**
 * CPython's `random` module, as far as Karenina's k-shot few-shot selection uses it:
 * `random.seed(n)` for a non-negative int n < 2^32 and `random.sample(population, k)`.
 *
 * Karenina (schemas/config/models.py, `FewShotConfig.resolve_examples_for_question`) does
 * `random.seed(int(md5(question_id).hexdigest(), 16) & 0x7FFFFFFF)` then
 * `random.sample(available_examples, k)`; to pick the same examples we need the same generator:
 * - MT19937 seeded by `init_by_array([n])` (CPython `random_seed`: the int's 32-bit words; one word here),
 * - `getrandbits(b)` for b ≤ 32 = the next 32-bit output shifted right by 32 − b,
 * - `_randbelow(n)`: getrandbits(n.bit_length()) redrawn until < n,
 * - `sample`: the pool path (swap-remove from a copy) when n ≤ setsize, else the set path
 *   (redraw already selected indices); setsize = 21, plus 4^ceil(log4(3k)) when k > 5 (Lib/random.py).
 * Values pinned against CPython 3.11 in test/unit/pipeline/python-random.test.ts.
 */

const N = 624;
const M = 397;

export class PythonRandom {
  private mt = new Uint32Array(N);
  private mti = N + 1;

  /** `random.seed(n)` for an integer 0 ≤ n < 2^32 (what `& 0x7FFFFFFF` leaves). */
  constructor(seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new RangeError("seed must be an integer in [0, 2^32)");
    this.initByArray([seed >>> 0]);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.mti = N;
  }

  private initByArray(key: number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) (mt[0] = mt[N - 1]!), (i = 1);
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) (mt[0] = mt[N - 1]!), (i = 1);
    }
    mt[0] = 0x80000000;
  }

  /** The next tempered 32-bit output (genrand_uint32). */
  uint32(): number {
    const mt = this.mt;
    if (this.mti >= N) {
      for (let kk = 0; kk < N; kk++) {
        const y = (mt[kk]! & 0x80000000) | (mt[(kk + 1) % N]! & 0x7fffffff);
        mt[kk] = mt[(kk + M) % N]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.mti = 0;
    }
    let y = mt[this.mti++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `getrandbits(bits)` for 1 ≤ bits ≤ 32. */
  getrandbits(bits: number): number {
    return this.uint32() >>> (32 - bits);
  }

  /** `_randbelow_with_getrandbits(n)`: uniform in [0, n) for 1 ≤ n < 2^32. */
  randbelow(n: number): number {
    const bits = 32 - Math.clz32(n);
    let r = this.getrandbits(bits);
    while (r >= n) r = this.getrandbits(bits);
    return r;
  }

  /** `random.sample(population, k)`: k distinct items in selection order. */
  sample<T>(population: readonly T[], k: number): T[] {
    const n = population.length;
    if (k < 0 || k > n) throw new RangeError("sample larger than population or is negative");
    let setsize = 21;
    if (k > 5) setsize += 4 ** Math.ceil(Math.log(k * 3) / Math.log(4));
    const result: T[] = [];
    if (n <= setsize) {
      const pool = [...population];
      for (let i = 0; i < k; i++) {
        const j = this.randbelow(n - i);
        result.push(pool[j]!);
        pool[j] = pool[n - i - 1]!;
      }
    } else {
      const selected = new Set<number>();
      for (let i = 0; i < k; i++) {
        let j = this.randbelow(n);
        while (selected.has(j)) j = this.randbelow(n);
        selected.add(j);
        result.push(population[j]!);
      }
    }
    return result;
  }
}
