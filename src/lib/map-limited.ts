/**
 * `fn` over `items` with at most `limit` calls running at a time; results in the items' order,
 * whatever order the calls finish in (so what callers build from them stays deterministic).
 * As with Promise.all, the first call that throws rejects the map; calls already started run on.
 */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!, i);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}
