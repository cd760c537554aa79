/** Item access and slicing on str, list, tuple and dict, with Python's index rules. */
import { num } from "./builtins";
import { hashable, isTuple, PyError, pyRepr, type PyValue, tuple, typeName } from "./values";

/** Python indexes str by code point; JS by UTF-16 unit. Only astral text needs the split. */
function codePoints(s: string): string[] | string {
  return /[\uD800-\uDFFF]/.test(s) ? [...s] : s;
}

export function seqIndex(seq: { length: number }, key: PyValue, line: number): number {
  if (typeof key !== "number" || !Number.isInteger(key))
    throw new PyError("TypeError", `indices must be integers, not '${typeName(key)}'`, line);
  const i = key < 0 ? key + seq.length : key;
  if (i < 0 || i >= seq.length) throw new PyError("IndexError", "index out of range", line);
  return i;
}

export function itemOf(obj: PyValue, key: PyValue, line: number): PyValue {
  if (obj instanceof Map) {
    if (!obj.has(hashable(key, line))) throw new PyError("KeyError", pyRepr(key), line);
    return obj.get(key)!;
  }
  if (typeof obj === "string") {
    const chars = codePoints(obj);
    return chars[seqIndex(chars, key, line)]!;
  }
  if (Array.isArray(obj)) return obj[seqIndex(obj, key, line)]!;
  throw new PyError("TypeError", `'${typeName(obj)}' object is not subscriptable`, line);
}

/** `target[lo:hi:step]` with None for an omitted bound. */
export function sliceOf(target: PyValue, lo: PyValue, hi: PyValue, stepValue: PyValue, line: number): PyValue {
  if (typeof target !== "string" && !Array.isArray(target))
    throw new PyError("TypeError", `'${typeName(target)}' object is not subscriptable`, line);
  const obj = typeof target === "string" ? codePoints(target) : target;
  const step = stepValue === null ? 1 : num(stepValue, "slice step");
  if (step === 0) throw new PyError("ValueError", "slice step cannot be zero", line);
  const n = obj.length;
  const norm = (v: PyValue, dflt: number) => {
    if (v === null) return dflt;
    const i = num(v, "slice index");
    return i < 0 ? Math.max(i + n, step > 0 ? 0 : -1) : Math.min(i, step > 0 ? n : n - 1);
  };
  const from = norm(lo, step > 0 ? 0 : n - 1);
  const to = norm(hi, step > 0 ? n : -1);
  const items: PyValue[] = [];
  for (let i = from; step > 0 ? i < to : i > to; i += step) items.push(obj[i]!);
  if (typeof target === "string") return items.join("");
  return isTuple(target) ? tuple(items) : items;
}
