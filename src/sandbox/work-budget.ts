/**
 * The guest-side half of the sandbox's work budget: a script run in every fresh context before the
 * user's source. QuickJS polls its interrupt handler only on bytecode back-edges and calls, so one
 * native builtin call (`new Array(1e6).fill(1)`, `s.repeat(n)`, `xs.sort()`, a backtracking regex)
 * may do millions of steps between two polls; a loop around one ran 23.7 s under a 1 s "limit".
 *
 * The prelude replaces every builtin function reachable from the global object (constructors,
 * their statics, their prototypes' methods, Math, JSON, Reflect, %TypedArray%) with a Proxy that
 * charges the work the call can do: 1 + the length of the receiver and of every string/array
 * argument before the call (n·log2(n)·4 for a sort), + the length of the string/array it
 * returns after. Past the budget
 * the Proxy asks the host to stop (the next interrupt poll ends the run, uncatchably) and throws
 * at once on every later builtin call, so even a `catch`-and-retry loop only spins bytecode, which
 * the interrupt cap counts. Regex calls also tell the host they are inside the regex engine,
 * where each interrupt poll stands for far more work (the host weighs them, see quickjs.ts).
 * The originals live only in this closure: user code cannot reach them to undo the wrapping.
 */

/** Host functions the prelude captures and deletes from the global object. */
export const HOST_STOP = "__edgeval_stop__";
export const HOST_REGEX = "__edgeval_regex__";

export function workBudgetPrelude(budget: number): string {
  return `(() => {
  "use strict";
  const stop = globalThis[${JSON.stringify(HOST_STOP)}];
  const regexMode = globalThis[${JSON.stringify(HOST_REGEX)}];
  delete globalThis[${JSON.stringify(HOST_STOP)}];
  delete globalThis[${JSON.stringify(HOST_REGEX)}];
  const isArray = Array.isArray, apply = Reflect.apply, construct = Reflect.construct;
  const ownKeys = Reflect.ownKeys, getDesc = Object.getOwnPropertyDescriptor, defProp = Object.defineProperty;
  const getProto = Object.getPrototypeOf, P = Proxy, WM = WeakMap, S = Set;
  let left = ${budget};
  let over = false;
  const size = (v) => (typeof v === "string" || isArray(v) ? v.length : 0);
  const charge = (n) => {
    left -= n;
    if (left < 0 && !over) { over = true; stop(); }
    if (over) throw new RangeError("the builtin work budget (${budget} elements) is spent");
  };
  const argsSize = (args) => { let n = 0; for (let i = 0; i < args.length; i++) n += size(args[i]); return n; };
  const RP = RegExp.prototype, SP = String.prototype;
  const regexFns = new S([RP.exec, RP.test, RP[Symbol.match], RP[Symbol.matchAll], RP[Symbol.replace], RP[Symbol.search], RP[Symbol.split],
    SP.match, SP.matchAll, SP.replace, SP.replaceAll, SP.search, SP.split]);
  // A sort compares ~n·log2(n) times (on strings by default): charged that, four units a compare.
  const sorts = new S([Array.prototype.sort, Array.prototype.toSorted, getProto(Uint8Array.prototype).sort, getProto(Uint8Array.prototype).toSorted]);
  const sortCost = (n) => n * Math.ceil(Math.log2(n + 1)) * 4;
  const wrapped = new WM();
  const wrap = (fn) => {
    const done = wrapped.get(fn);
    if (done) return done;
    const regex = regexFns.has(fn);
    const sort = sorts.has(fn);
    const p = new P(fn, {
      apply(t, self, args) {
        charge(1 + (sort ? sortCost(size(self)) : size(self)) + argsSize(args));
        if (regex) regexMode(1);
        let r;
        try { r = apply(t, self, args); } finally { if (regex) regexMode(0); }
        charge(size(r));
        return r;
      },
      construct(t, args, nt) {
        charge(1 + argsSize(args));
        const r = construct(t, args, nt);
        charge(size(r));
        return r;
      },
    });
    wrapped.set(fn, p);
    return p;
  };
  const seen = new S();
  const wrapAll = (obj) => {
    if (obj === null || (typeof obj !== "object" && typeof obj !== "function") || seen.has(obj)) return;
    seen.add(obj);
    for (const key of ownKeys(obj)) {
      const d = getDesc(obj, key);
      if (!d || !("value" in d) || typeof d.value !== "function" || !d.writable || !d.configurable) continue;
      if (key === "constructor") continue;
      defProp(obj, key, { value: wrap(d.value), writable: true, configurable: true, enumerable: d.enumerable });
    }
  };
  const roots = [];
  for (const key of ownKeys(globalThis)) {
    const d = getDesc(globalThis, key);
    if (d && "value" in d && d.value !== null && (typeof d.value === "object" || typeof d.value === "function")) roots.push(d.value);
  }
  roots.push(getProto(Uint8Array), getProto(Uint8Array.prototype));
  for (const root of roots) {
    wrapAll(root);
    if (typeof root === "function" && root.prototype) wrapAll(root.prototype);
  }
  wrapAll(globalThis);
  for (const root of roots) if (typeof root === "function" && root.prototype && getDesc(root.prototype, "constructor")) {
    const w = wrapped.get(root);
    if (w) defProp(root.prototype, "constructor", { value: w, writable: true, configurable: true, enumerable: false });
  }
})();`;
}
