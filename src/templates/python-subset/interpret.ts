/**
 * The evaluator. Every statement and expression costs one step from a fixed budget, so a template
 * cannot run away (the budget does not depend on a clock, which may stand still in workerd).
 */
import type { Expr, FunctionDef, Stmt, Target } from "./ast";
import { itemOf, seqIndex, sliceOf } from "./access";
import { BUILTINS, iterate, num, unboundMethod } from "./builtins";
import { EXCEPTIONS, toRaised } from "./exceptions";
import { comprehension, execTry } from "./control";
import { formatValue } from "./format-spec";
import { binaryOp, compare } from "./operators";
import { methodOf } from "./methods";
import { mathModule } from "./math-module";
import { newBudget } from "../regex";
import { reModule } from "./re-module";
import {
  hashable,
  isCallable,
  isTuple,
  type PyCallable,
  PyError,
  PyObject,
  pyRepr,
  pyStr,
  type PyValue,
  truthy,
  tuple,
  typeName,
} from "./values";

export const DEFAULT_STEP_BUDGET = 200_000;
/** Characters + collection slots a run may build in total (≈ tens of MB at most). */
export const MAX_ALLOCATED = 4_000_000;
/** Expressions that build a new value (a name or attribute read only returns an existing one). */
const ALLOCATING = new Set<Expr["k"]>(["bin", "call", "list", "tuple", "set", "dict", "comp", "fstring", "slice"]);

class Return {
  constructor(readonly value: PyValue) {}
}
class Break {}
class Continue {}

export class Interpreter {
  private steps = 0;
  /** One regex step budget for the whole run, however often `re` is imported. */
  private readonly regexBudget = newBudget();
  constructor(
    readonly globals: Map<string, PyValue>,
    private readonly budget = DEFAULT_STEP_BUDGET,
  ) {}

  private tick(line: number): void {
    if (++this.steps > this.budget)
      throw new PyError("StepLimitExceeded", `the template ran more than ${this.budget} steps; the subset stops runaway code`, line);
  }

  /** Calls a function (a method gets `self` first in `args`); returns what it returns (None at the end). */
  callFunction(fn: FunctionDef, args: PyValue[], kwargs: Map<string, PyValue> = new Map(), closure?: Map<string, PyValue>): PyValue {
    const scope = new Map<string, PyValue>(closure ?? []);
    if (args.length > fn.params.length)
      throw new PyError("TypeError", `takes ${fn.params.length} positional arguments but ${args.length} were given`);
    for (const k of kwargs.keys()) if (!fn.params.includes(k)) throw new PyError("TypeError", `got an unexpected keyword argument '${k}'`);
    fn.params.forEach((p, i) => {
      if (i < args.length) {
        if (kwargs.has(p)) throw new PyError("TypeError", `got multiple values for argument '${p}'`);
        scope.set(p, args[i]!);
      } else if (kwargs.has(p)) scope.set(p, kwargs.get(p)!);
      else if (fn.defaults[i]) scope.set(p, this.eval(fn.defaults[i]!, this.globals));
      else throw new PyError("TypeError", `missing required argument '${p}'`);
    });
    try {
      this.block(fn.body, scope);
    } catch (e) {
      if (e instanceof Return) return e.value;
      throw e;
    }
    return null;
  }

  block(stmts: Stmt[], scope: Map<string, PyValue>): void {
    for (const s of stmts) this.stmt(s, scope);
  }

  /** One pass of a for/while body: `break` ends the loop, `continue` only this pass. */
  private loopBody(body: Stmt[], scope: Map<string, PyValue>): "break" | "next" {
    try {
      this.block(body, scope);
    } catch (e) {
      if (e instanceof Break) return "break";
      if (!(e instanceof Continue)) throw e;
    }
    return "next";
  }

  private stmt(s: Stmt, scope: Map<string, PyValue>): void {
    this.tick(s.line);
    try {
      this.exec(s, scope);
    } catch (e) {
      if (e instanceof PyError && e.line === null) e.line = s.line;
      throw e;
    }
  }

  private exec(s: Stmt, scope: Map<string, PyValue>): void {
    switch (s.k) {
      case "expr":
        this.eval(s.e, scope);
        return;
      case "assign": {
        const v = this.eval(s.value, scope);
        for (const t of s.targets) this.assign(t, v, scope);
        return;
      }
      case "annassign":
        if (s.value) this.assign(s.target, this.eval(s.value, scope), scope);
        return;
      case "augassign": {
        const cur = this.eval(s.target as Expr, scope);
        this.assign(s.target, this.binop(s.op, cur, this.eval(s.value, scope), s.line), scope);
        return;
      }
      case "if":
        this.block(truthy(this.eval(s.test, scope)) ? s.body : s.orelse, scope);
        return;
      case "for":
        for (const item of [...iterate(this.eval(s.iter, scope))]) {
          this.assign(s.target, item, scope);
          if (this.loopBody(s.body, scope) === "break") break;
        }
        return;
      case "return":
        throw new Return(s.value ? this.eval(s.value, scope) : null);
      case "break":
        throw new Break();
      case "continue":
        throw new Continue();
      case "while":
        while (truthy(this.eval(s.test, scope))) {
          if (this.loopBody(s.body, scope) === "break") break;
        }
        return;
      case "try":
        execTry(this, s, scope);
        return;
      case "raise": {
        if (s.exc) throw toRaised(this.eval(s.exc, scope), s.line);
        const current = this.handling[this.handling.length - 1];
        if (!current) throw new PyError("RuntimeError", "No active exception to reraise", s.line);
        throw current;
      }
      case "assert":
        if (!truthy(this.eval(s.test, scope))) throw new PyError("AssertionError", s.msg ? pyStr(this.eval(s.msg, scope)) : "", s.line);
        return;
      case "import":
        if (s.module === "re") scope.set("re", reModule(this.regexBudget));
        else if (s.module === "math") scope.set("math", mathModule());
        return;
      case "pass":
        return;
      case "def":
      case "class":
        throw new PyError("SyntaxError", `nested ${s.k} is outside the subset`, s.line);
    }
  }

  /** The errors being handled, innermost last: a bare `raise` re-raises the last one. */
  readonly handling: PyError[] = [];

  assign(t: Target, v: PyValue, scope: Map<string, PyValue>): void {
    if (t.k === "name") scope.set(t.id, v);
    else if (t.k === "tuple") {
      const items = iterate(v);
      if (items.length !== t.items.length)
        throw new PyError("ValueError", `expected ${t.items.length} values to unpack, got ${items.length}`, t.line);
      t.items.forEach((sub, i) => this.assign(sub, items[i]!, scope));
    } else if (t.k === "attr") {
      const obj = this.eval(t.obj, scope);
      if (!(obj instanceof PyObject)) throw new PyError("AttributeError", `cannot set attributes on '${typeName(obj)}'`, t.line);
      obj.attrs.set(t.name, v);
    } else {
      const obj = this.eval(t.obj, scope);
      const key = this.eval(t.index, scope);
      if (obj instanceof Map) obj.set(hashable(key, t.line), v);
      else if (Array.isArray(obj) && !isTuple(obj)) obj[seqIndex(obj, key, t.line)] = v;
      else throw new PyError("TypeError", `'${typeName(obj)}' object does not support item assignment`, t.line);
    }
  }

  eval(e: Expr, scope: Map<string, PyValue>): PyValue {
    this.tick(e.line);
    const v = this.evalNode(e, scope);
    if (ALLOCATING.has(e.k)) this.charge(v, e.line);
    return v;
  }

  /**
   * Memory is bounded like time: every value an expression builds (string, list, dict, set)
   * counts its size against one allowance per run, so keeping many large values fails cleanly
   * (MemoryError) instead of exhausting the isolate. Values re-read by name cost nothing.
   */
  private allocated = 0;
  private charge(v: PyValue, line: number): void {
    const size = typeof v === "string" || Array.isArray(v) ? v.length : v instanceof Map || v instanceof Set ? v.size : 0;
    if (size === 0) return;
    this.allocated += size;
    if (this.allocated > MAX_ALLOCATED)
      throw new PyError(
        "MemoryError",
        `the template built more than ${MAX_ALLOCATED} items of strings and collections; the subset stops runaway allocation`,
        line,
      );
  }

  private evalNode(e: Expr, scope: Map<string, PyValue>): PyValue {
    switch (e.k) {
      case "const":
        return e.v;
      case "name":
        return this.lookup(e.id, scope, e.line);
      case "attr":
        return this.attribute(this.eval(e.obj, scope), e.name, e.line);
      case "index":
        return itemOf(this.eval(e.obj, scope), this.eval(e.index, scope), e.line);
      case "slice":
        return this.slice(e, scope);
      case "call":
        return this.call(e, scope);
      case "unary": {
        const v = this.eval(e.e, scope);
        if (e.op === "not") return !truthy(v);
        const n = num(v, `unary ${e.op}`);
        return e.op === "-" ? -n : n;
      }
      case "bin":
        return this.binop(e.op, this.eval(e.l, scope), this.eval(e.r, scope), e.line);
      case "bool": {
        const l = this.eval(e.l, scope);
        return (e.op === "and" ? !truthy(l) : truthy(l)) ? l : this.eval(e.r, scope);
      }
      case "cmp": {
        let left = this.eval(e.first, scope);
        for (let i = 0; i < e.ops.length; i++) {
          const right = this.eval(e.rest[i]!, scope);
          if (!compare(e.ops[i]!, left, right, e.line)) return false;
          left = right;
        }
        return true;
      }
      case "ifexp":
        return truthy(this.eval(e.test, scope)) ? this.eval(e.body, scope) : this.eval(e.orelse, scope);
      case "list":
        return e.items.map((x) => this.eval(x, scope));
      case "tuple":
        return tuple(e.items.map((x) => this.eval(x, scope)));
      case "set":
        return new Set(e.items.map((x) => hashable(this.eval(x, scope), e.line)));
      case "dict":
        return new Map(e.entries.map(([k, v]) => [hashable(this.eval(k, scope), e.line), this.eval(v, scope)]));
      case "fstring":
        return e.parts
          .map((p) => {
            if (typeof p === "string") return p;
            const v = this.eval(p.e, scope);
            return formatValue(p.conv === "r" ? pyRepr(v) : p.conv === "s" ? pyStr(v) : v, p.spec);
          })
          .join("");
      case "comp":
        return comprehension(this, e, scope);
      case "lambda": {
        // Closes over the defining scope (read at call time, as Python's closures do).
        const fn: FunctionDef = { params: e.params, defaults: e.defaults, body: [{ k: "return", line: e.line, value: e.body }] };
        return { callable: true, name: "<lambda>", call: (args, kwargs) => this.callFunction(fn, args, kwargs, scope) };
      }
    }
  }

  private lookup(id: string, scope: Map<string, PyValue>, line: number): PyValue {
    if (scope.has(id)) return scope.get(id)!;
    if (this.globals.has(id)) return this.globals.get(id)!;
    if (Object.hasOwn(BUILTINS, id)) return BUILTINS[id]!;
    if (Object.hasOwn(EXCEPTIONS, id)) return EXCEPTIONS[id]!;
    throw new PyError("NameError", `name '${id}' is not defined`, line);
  }

  private attribute(obj: PyValue, name: string, line: number): PyValue {
    if (obj instanceof PyObject) {
      if (obj.attrs.has(name)) return obj.attrs.get(name)!;
      const m = obj.methods.get(name);
      if (m) return { callable: true, name, call: (args, kwargs) => this.callFunction(m, [obj, ...args], kwargs) };
      throw new PyError("AttributeError", `'${obj.className}' object has no attribute '${name}'`, line);
    }
    if (isCallable(obj) && obj.typeName) {
      const m = unboundMethod(obj.typeName, name);
      if (m) return m;
    }
    return methodOf(obj, name);
  }

  private slice(e: Extract<Expr, { k: "slice" }>, scope: Map<string, PyValue>): PyValue {
    const opt = (x: Expr | null) => (x ? this.eval(x, scope) : null);
    return sliceOf(this.eval(e.obj, scope), opt(e.lo), opt(e.hi), opt(e.step), e.line);
  }

  private call(e: Extract<Expr, { k: "call" }>, scope: Map<string, PyValue>): PyValue {
    const fn = this.eval(e.fn, scope);
    if (!isCallable(fn)) throw new PyError("TypeError", `'${typeName(fn)}' object is not callable`, e.line);
    const args = e.args.map((a) => this.eval(a, scope));
    const kwargs = new Map(e.kwargs.map(([k, v]) => [k, this.eval(v, scope)] as [string, PyValue]));
    return (fn as PyCallable).call(args, kwargs);
  }

  binop(op: string, a: PyValue, b: PyValue, line: number): PyValue {
    return binaryOp(op, a, b, line);
  }
}
