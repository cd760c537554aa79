/**
 * Python exceptions in the subset: the builtin exception classes, `raise`, and which errors an
 * `except` may catch. The subset's own guards (step budget, size limit, recursion) are never
 * catchable, so `try: <runaway> except: pass` still ends the run.
 */
import { isTuple, type PyCallable, PyError, PyObject, pyStr, type PyValue, tuple, typeName } from "./values";

/** Each exception class's base; "Exception" is the root of everything catchable. */
const PARENT: Record<string, string> = {
  ArithmeticError: "Exception",
  ZeroDivisionError: "ArithmeticError",
  OverflowError: "ArithmeticError",
  LookupError: "Exception",
  KeyError: "LookupError",
  IndexError: "LookupError",
  ValueError: "Exception",
  UnicodeError: "ValueError",
  TypeError: "Exception",
  AttributeError: "Exception",
  NameError: "Exception",
  AssertionError: "Exception",
  RuntimeError: "Exception",
  NotImplementedError: "RuntimeError",
  "re.error": "Exception",
};

/** The subset's own limits: stopping runaway code must not be undone by an `except`. */
const UNCATCHABLE = new Set(["StepLimitExceeded", "MemoryError", "RecursionError", "SyntaxError"]);

export interface ExceptionClass extends PyCallable {
  excName: string;
}

function exceptionClass(name: string): ExceptionClass {
  return {
    callable: true,
    name,
    excName: name,
    call: (args) => {
      const e = new PyObject(name, new Map());
      e.attrs.set("args", tuple(args));
      return e;
    },
  };
}

export const EXCEPTIONS: Record<string, ExceptionClass> = Object.fromEntries(
  ["Exception", "BaseException", ...Object.keys(PARENT).filter((n) => !n.includes("."))].map((n) => [n, exceptionClass(n)]),
);

const isExceptionClass = (v: PyValue): v is ExceptionClass =>
  typeof v === "object" && v !== null && typeof (v as ExceptionClass).excName === "string";

/** The message Python's str(e) gives: the single argument, or the tuple of them. */
function messageOf(e: PyObject): string {
  const args = e.attrs.get("args");
  if (!Array.isArray(args) || args.length === 0) return "";
  return args.length === 1 ? pyStr(args[0]!) : pyStr(args);
}

/** `raise X`, `raise X(...)`: the PyError the interpreter throws. */
export function toRaised(v: PyValue, line: number): PyError {
  if (isExceptionClass(v)) return new PyError(v.excName, "", line);
  if (v instanceof PyObject && (v.className in PARENT || v.className === "Exception" || v.className === "BaseException")) {
    const err = new PyError(v.className, messageOf(v), line);
    return err;
  }
  return new PyError("TypeError", `exceptions must derive from BaseException, not '${typeName(v)}'`, line);
}

/** The exception object an `except … as e` binds. */
export function caughtValue(err: PyError): PyObject {
  const e = new PyObject(err.pyType, new Map());
  e.attrs.set("args", tuple(err.message ? [err.message] : []));
  return e;
}

function isSubclass(name: string, of: string): boolean {
  if (of === "BaseException") return true;
  for (let n: string | undefined = name; n; n = PARENT[n]) if (n === of) return true;
  return of === "Exception";
}

/** Whether `except <types>` (null: bare `except:`) catches this error. */
export function catches(err: PyError, types: PyValue | null): boolean {
  if (UNCATCHABLE.has(err.pyType)) return false;
  if (types === null) return true;
  const list = Array.isArray(types) && isTuple(types) ? types : [types];
  return list.some((t) => {
    if (!isExceptionClass(t)) throw new PyError("TypeError", "catching classes that do not inherit from BaseException is not allowed");
    return isSubclass(err.pyType, t.excName);
  });
}
