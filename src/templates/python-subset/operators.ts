/** Python's binary operators and comparisons on subset values. */
import { iterate, MAX_SEQUENCE } from "./builtins";
import { formatValue } from "./format-spec";
import { hashable, isTuple, PyError, pyEq, pyLess, pyRepr, pyStr, type PyValue, tuple, typeName } from "./values";

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
  if (op === "%" && typeof a === "string") return percentFormat(a, b, line);
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

/** printf-style `"%s: %.2f" % (a, b)`: conversions s r d i f F e E % with flags, width, precision. */
function percentFormat(template: string, args: PyValue, line: number): string {
  const values = Array.isArray(args) && isTuple(args) ? [...args] : [args];
  let next = 0;
  const out = template.replace(
    /%([-+ 0#]*)(\d+)?(?:\.(\d+))?([srdifFeE%])/g,
    (_m, flags: string, width?: string, precision?: string, conv?: string) => {
      if (conv === "%") return "%";
      if (next >= values.length) throw new PyError("TypeError", "not enough arguments for format string", line);
      const v = values[next++]!;
      if ((conv === "d" || conv === "i") && typeof v !== "number" && typeof v !== "boolean") {
        throw new PyError("TypeError", `%${conv} format: a real number is required, not ${typeName(v)}`, line);
      }
      const body = conv === "s" ? pyStr(v) : conv === "r" ? pyRepr(v) : conv === "d" || conv === "i" ? String(Math.trunc(Number(v))) : null;
      const align = flags.includes("-") ? "<" : "";
      const sign = flags.includes("+") ? "+" : flags.includes(" ") ? " " : "";
      const zero = flags.includes("0") && !align ? "0" : "";
      if (body !== null) {
        const spec = `${align}${conv === "d" || conv === "i" ? sign + zero : ""}${width ?? ""}`;
        return formatValue(conv === "d" || conv === "i" ? Math.trunc(Number(v)) : body, spec);
      }
      return formatValue(v, `${align}${sign}${zero}${width ?? ""}.${precision ?? "6"}${conv}`);
    },
  );
  if (next < values.length) throw new PyError("TypeError", "not all arguments converted during string formatting", line);
  return out;
}
