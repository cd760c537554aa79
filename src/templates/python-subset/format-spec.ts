/**
 * Python's format-spec mini-language for f-strings and `str.format`:
 * `[[fill]align][sign][0][width][,|_][.precision][type]` with types `s d f F e E %` (and none).
 * Anything else (`g`, `x`, `b`, `#`, nested fields) is a ValueError naming the spec.
 */
import { pyRound } from "./builtins";
import { PyError, pyStr, type PyValue, typeName } from "./values";

const SPEC = /^(?:(.)?([<>=^]))?([+\- ])?(0)?(\d+)?([,_])?(?:\.(\d+))?([sdfFeE%])?$/su;

function group(intPart: string, sep: string): string {
  return intPart.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
}

/** Fixed-point with Python's rounding (half to even on the exact binary value). */
function fixed(x: number, precision: number): string {
  // Past 1e21 JS prints exponents; such floats are integers, exact as a BigInt.
  if (Math.abs(x) >= 1e21) return `${BigInt(x)}${precision ? `.${"0".repeat(precision)}` : ""}`;
  return pyRound(x, precision).toFixed(precision);
}

function exponent(x: number, precision: number, upper: boolean): string {
  const s = x.toExponential(precision).replace(/e([+-])(\d)$/, "e$10$2");
  return upper ? s.toUpperCase() : s;
}

export function formatValue(value: PyValue, spec: string): string {
  if (spec === "") return pyStr(value);
  const m = SPEC.exec(spec);
  if (!m) throw new PyError("ValueError", `format spec ${JSON.stringify(spec)} is outside the subset`);
  const [, fillChar, alignChar, sign, zero, widthText, grouping, precisionText, type] = m;
  const precision = precisionText === undefined ? undefined : Number(precisionText);
  const isNumber = typeof value === "number" || typeof value === "boolean";
  let body: string;
  if (type === "s" || (!type && !isNumber)) {
    if (isNumber && type === "s") throw new PyError("ValueError", `Unknown format code 's' for object of type '${typeName(value)}'`);
    body = pyStr(value);
    if (precision !== undefined) body = [...body].slice(0, precision).join("");
  } else {
    if (!isNumber) throw new PyError("ValueError", `Unknown format code '${type}' for object of type '${typeName(value)}'`);
    const x = Number(value);
    const digits = precision ?? 6;
    if (type === "d") {
      if (!Number.isInteger(x)) throw new PyError("ValueError", "Unknown format code 'd' for object of type 'float'");
      body = String(Math.abs(x));
    } else if (type === "f" || type === "F") body = fixed(Math.abs(x), digits);
    else if (type === "e" || type === "E") body = exponent(Math.abs(x), digits, type === "E");
    else if (type === "%") body = `${fixed(Math.abs(x) * 100, digits)}%`;
    else body = precision === undefined ? pyStr(Math.abs(x)) : fixed(Math.abs(x), digits);
    if (grouping) {
      const [intPart, rest] = [body.replace(/[.%eE].*$/s, ""), body.slice(body.replace(/[.%eE].*$/s, "").length)];
      body = group(intPart, grouping) + rest;
    }
    const signText = x < 0 || Object.is(x, -0) ? "-" : sign === "+" ? "+" : sign === " " ? " " : "";
    body = signText + body;
  }
  const width = widthText === undefined ? 0 : Number(widthText);
  const fill = fillChar ?? (zero && !alignChar ? "0" : " ");
  const align = alignChar ?? (zero ? "=" : isNumber ? ">" : "<");
  const pad = Math.max(0, width - [...body].length);
  if (pad === 0) return body;
  const fillText = (n: number) => fill.repeat(n);
  switch (align) {
    case "<":
      return body + fillText(pad);
    case ">":
      return fillText(pad) + body;
    case "^":
      return fillText(Math.floor(pad / 2)) + body + fillText(pad - Math.floor(pad / 2));
    default: {
      // "=": padding goes between the sign and the digits.
      const signLen = /^[+\- ]/.test(body) ? 1 : 0;
      return body.slice(0, signLen) + fillText(pad) + body.slice(signLen);
    }
  }
}
