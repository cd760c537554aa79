/** Python's binary operators and comparisons on subset values. */
import { iterate, MAX_SEQUENCE } from "./builtins";
import { hashable, isTuple, PyError, pyEq, pyLess, type PyValue, tuple, typeName } from "./values";

export function compare(op: string, a: PyValue, b: PyValue, line: number): boolean {
  switch (op) {
    case "==":
      return pyEq(a, b);
    case "!=":
      return !pyEq(a, b);
    case "<":
      return pyLess(a, b, line);
    case ">":
      return pyLess(b, a, line);
    case "<=":
      return pyLess(a, b, line) || pyEq(a, b);
    case ">=":
      return pyLess(b, a, line) || pyEq(a, b);
    case "is":
      return a === b || (a instanceof Object ? false : pyEq(a, b) && typeof a === typeof b);
    case "is not":
      return !compare("is", a, b, line);
    case "in":
      return contains(b, a, line);
    case "not in":
      return !contains(b, a, line);
  }
  throw new PyError("SyntaxError", `unknown comparison ${op}`, line);
}

function contains(container: PyValue, x: PyValue, line: number): boolean {
  if (typeof container === "string") {
    if (typeof x !== "string") throw new PyError("TypeError", `'in <string>' requires string as left operand, not ${typeName(x)}`, line);
    return container.includes(x);
  }
  if (container instanceof Map) return container.has(hashable(x, line));
  if (container instanceof Set) return container.has(hashable(x, line));
  return iterate(container).some((y) => pyEq(y, x));
}

export function binaryOp(op: string, a: PyValue, b: PyValue, line: number): PyValue {
  if (op === "+" && typeof a === "string" && typeof b === "string") return capped(a + b, line);
  if (op === "+" && Array.isArray(a) && Array.isArray(b) && isTuple(a) === isTuple(b)) {
    const out = capped([...a, ...b], line);
    return isTuple(a) ? tuple(out) : out;
  }
  if (op === "*" && (typeof a === "string" || Array.isArray(a)) && typeof b === "number") return repeat(a, b, line);
  if (op === "*" && (typeof b === "string" || Array.isArray(b)) && typeof a === "number") return repeat(b, a, line);
  if (a instanceof Set && b instanceof Set) {
    if (op === "|") return new Set([...a, ...b]);
    if (op === "&") return new Set([...a].filter((x) => b.has(x)));
    if (op === "-") return new Set([...a].filter((x) => !b.has(x)));
  }
  if (op === "%" && typeof a === "string") throw new PyError("TypeError", "%-formatting is outside the subset; use an f-string", line);
  const isNum = (v: PyValue) => typeof v === "number" || typeof v === "boolean";
  if (!isNum(a) || !isNum(b)) {
    throw new PyError("TypeError", `unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`, line);
  }
  const x = Number(a);
  const y = Number(b);
  const zero = () => new PyError("ZeroDivisionError", "division by zero", line);
  switch (op) {
    case "+":
      return x + y;
    case "-":
      return x - y;
    case "*":
      return x * y;
    case "/":
      if (y === 0) throw zero();
      return x / y;
    case "//":
      if (y === 0) throw zero();
      return Math.floor(x / y);
    case "%":
      if (y === 0) throw zero();
      return ((x % y) + y) % y;
    case "**":
      return x ** y;
  }
  throw new PyError("TypeError", `operator ${op} is outside the subset for numbers`, line);
}

function capped<T extends { length: number }>(v: T, line: number): T {
  if (v.length > MAX_SEQUENCE) throw new PyError("MemoryError", `result longer than ${MAX_SEQUENCE} exceeds the subset's limit`, line);
  return v;
}

function repeat(seq: string | PyValue[], times: number, line: number): PyValue {
  const n = Math.max(0, Math.trunc(times));
  capped({ length: seq.length * n }, line);
  if (typeof seq === "string") return seq.repeat(n);
  const out = Array.from({ length: n }, () => seq).flat();
  return isTuple(seq) ? tuple(out) : out;
}
