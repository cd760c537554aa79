/** Comprehensions and try/except, kept out of interpret.ts for size; they drive the Interpreter. */
import type { Expr, Stmt } from "./ast";
import { iterate, MAX_SEQUENCE } from "./builtins";
import { caughtValue, catches } from "./exceptions";
import type { Interpreter } from "./interpret";
import { hashable, PyError, type PyValue, truthy } from "./values";

export function comprehension(interp: Interpreter, e: Extract<Expr, { k: "comp" }>, outer: Map<string, PyValue>): PyValue {
  // Comprehension variables live in their own scope, as in Python 3.
  const scope = new Map(outer);
  const out: PyValue[] = [];
  const dict = new Map<PyValue, PyValue>();
  const loop = (g: number) => {
    if (g === e.gens.length) {
      if (e.kind === "dict") dict.set(hashable(interp.eval(e.elt, scope), e.line), interp.eval(e.val!, scope));
      else if (out.length >= MAX_SEQUENCE) throw new PyError("MemoryError", "comprehension exceeds the subset's size limit", e.line);
      else out.push(interp.eval(e.elt, scope));
      return;
    }
    const gen = e.gens[g]!;
    for (const item of [...iterate(interp.eval(gen.iter, scope))]) {
      interp.assign(gen.target, item, scope);
      if (gen.ifs.every((c) => truthy(interp.eval(c, scope)))) loop(g + 1);
    }
  };
  loop(0);
  if (e.kind === "dict") return dict;
  if (e.kind === "set") return new Set(out.map((x) => hashable(x, e.line)));
  return out;
}

export function execTry(interp: Interpreter, s: Extract<Stmt, { k: "try" }>, scope: Map<string, PyValue>): void {
  try {
    let raised = false;
    try {
      interp.block(s.body, scope);
    } catch (e) {
      if (!(e instanceof PyError)) throw e;
      const handler = s.handlers.find((h) => catches(e, h.types ? interp.eval(h.types, scope) : null));
      if (!handler) throw e;
      raised = true;
      if (handler.name) scope.set(handler.name, caughtValue(e));
      interp.handling.push(e);
      try {
        interp.block(handler.body, scope);
      } finally {
        interp.handling.pop();
      }
    }
    if (!raised) interp.block(s.orelse, scope);
  } finally {
    if (s.final.length) interp.block(s.final, scope);
  }
}
