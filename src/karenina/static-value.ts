/**
 * Reads the arguments of `VerifiedField(...)`, primitives and strategy nodes without running
 * anything: constants, lists, tuples, dicts, negative numbers and constructor calls only.
 */
import { type Expr, UnsupportedConstruct } from "../templates/python-subset";

export type StaticValue = null | boolean | number | string | StaticValue[] | { [k: string]: StaticValue } | StaticCall;

export interface StaticCall {
  call: string;
  args: StaticValue[];
  kwargs: Record<string, StaticValue>;
  line: number;
}

export const isCall = (v: StaticValue): v is StaticCall =>
  typeof v === "object" &&
  v !== null &&
  !Array.isArray(v) &&
  typeof (v as StaticCall).call === "string" &&
  (v as StaticCall).kwargs !== undefined;

export function staticValue(e: Expr): StaticValue {
  switch (e.k) {
    case "const":
      return e.v;
    case "list":
    case "tuple":
      return e.items.map(staticValue);
    case "dict": {
      const out: Record<string, StaticValue> = {};
      for (const [k, v] of e.entries) {
        const key = staticValue(k);
        if (typeof key !== "string") throw new UnsupportedConstruct(e.line, "non-string dict key in a template declaration");
        out[key] = staticValue(v);
      }
      return out;
    }
    case "unary": {
      const v = staticValue(e.e);
      if (typeof v === "number" && e.op !== "not") return e.op === "-" ? -v : v;
      break;
    }
    case "call": {
      const name = dottedName(e.fn);
      if (!name) break;
      const kwargs: Record<string, StaticValue> = {};
      for (const [k, v] of e.kwargs) kwargs[k] = staticValue(v);
      return { call: name, args: e.args.map(staticValue), kwargs, line: e.line };
    }
    default:
      break;
  }
  throw new UnsupportedConstruct(
    e.line,
    `${e.k} expression in a template declaration`,
    "only literals, lists, dicts and constructor calls can be read statically",
  );
}

/** `AllOf` or `primitives.AllOf` → the last name; anything else → null. */
function dottedName(e: Expr): string | null {
  if (e.k === "name") return e.id;
  if (e.k === "attr") return e.name;
  return null;
}

/** A static value with every call refused (ground truths, primitive parameters). */
export function plainJson(v: StaticValue, line: number, what: string): unknown {
  if (isCall(v)) throw new UnsupportedConstruct(v.line, `${v.call}(...) in ${what}`);
  if (Array.isArray(v)) return v.map((x) => plainJson(x, line, what));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainJson(x, line, what)]));
  return v;
}

/** An annotation as Python source, for messages. */
export function exprSource(e: Expr): string {
  switch (e.k) {
    case "name":
      return e.id;
    case "attr":
      return `${exprSource(e.obj)}.${e.name}`;
    case "index":
      return `${exprSource(e.obj)}[${e.index.k === "tuple" ? e.index.items.map(exprSource).join(", ") : exprSource(e.index)}]`;
    case "const":
      return typeof e.v === "string" ? JSON.stringify(e.v) : String(e.v);
    case "bin":
      return `${exprSource(e.l)} ${e.op} ${exprSource(e.r)}`;
    default:
      return e.k;
  }
}
