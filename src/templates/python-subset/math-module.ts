/** The `math` module functions numeric verify() code reaches for (after `import math`). */
import { num } from "./builtins";
import { type PyCallable, PyError, PyObject, type PyValue } from "./values";

/** CPython's math.isclose: rel_tol=1e-09, abs_tol=0.0 by default. */
function isclose(args: PyValue[], kwargs: Map<string, PyValue>): boolean {
  const [a, b] = [num(args[0] ?? null, "isclose()"), num(args[1] ?? null, "isclose()")];
  const rel = kwargs.has("rel_tol") ? num(kwargs.get("rel_tol")!, "rel_tol") : 1e-9;
  const abs = kwargs.has("abs_tol") ? num(kwargs.get("abs_tol")!, "abs_tol") : 0;
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= Math.max(rel * Math.max(Math.abs(a), Math.abs(b)), abs);
}

function domain(name: string, f: (x: number) => number): PyCallable["call"] {
  return ([x]) => {
    const r = f(num(x ?? null, `${name}()`));
    if (Number.isNaN(r) && !Number.isNaN(num(x ?? null, name))) throw new PyError("ValueError", "math domain error");
    return r;
  };
}

export function mathModule(): PyObject {
  const mod = new PyObject("module", new Map());
  const fns: Record<string, PyCallable["call"]> = {
    isclose,
    sqrt: domain("sqrt", Math.sqrt),
    log: ([x, base]) => {
      const v = domain("log", Math.log)([x ?? null], new Map()) as number;
      return base == null ? v : v / Math.log(num(base, "log()"));
    },
    log10: domain("log10", Math.log10),
    log2: domain("log2", Math.log2),
    exp: ([x]) => Math.exp(num(x ?? null, "exp()")),
    floor: ([x]) => Math.floor(num(x ?? null, "floor()")),
    ceil: ([x]) => Math.ceil(num(x ?? null, "ceil()")),
    trunc: ([x]) => Math.trunc(num(x ?? null, "trunc()")),
    fabs: ([x]) => Math.abs(num(x ?? null, "fabs()")),
    isnan: ([x]) => Number.isNaN(num(x ?? null, "isnan()")),
    isinf: ([x]) => !Number.isFinite(num(x ?? null, "isinf()")) && !Number.isNaN(num(x ?? null, "isinf()")),
    isfinite: ([x]) => Number.isFinite(num(x ?? null, "isfinite()")),
  };
  for (const [name, call] of Object.entries(fns)) mod.attrs.set(name, { callable: true, name: `math.${name}`, call });
  for (const [name, v] of Object.entries({ pi: Math.PI, e: Math.E, tau: 2 * Math.PI, inf: Infinity, nan: NaN })) mod.attrs.set(name, v);
  return mod;
}
