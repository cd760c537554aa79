/**
 * The Python subset's syntax tree. Built from `@lezer/python`'s concrete tree by `parse.ts`;
 * anything the subset does not cover never reaches this shape (it is refused while parsing, with
 * its line), so the interpreter only ever sees constructs it knows how to run.
 */

/** A constant as it appears in source: None, bool, int/float, str. */
export type Literal = null | boolean | number | string;

export type Expr =
  | { k: "const"; line: number; v: Literal }
  | { k: "name"; line: number; id: string }
  | { k: "attr"; line: number; obj: Expr; name: string }
  | { k: "index"; line: number; obj: Expr; index: Expr }
  | { k: "slice"; line: number; obj: Expr; lo: Expr | null; hi: Expr | null; step: Expr | null }
  | { k: "call"; line: number; fn: Expr; args: Expr[]; kwargs: [string, Expr][] }
  | { k: "unary"; line: number; op: "-" | "+" | "not"; e: Expr }
  | { k: "bin"; line: number; op: string; l: Expr; r: Expr }
  | { k: "bool"; line: number; op: "and" | "or"; l: Expr; r: Expr }
  /** Python chains comparisons: `a < b <= c` is `a < b and b <= c`, each operand evaluated once. */
  | { k: "cmp"; line: number; first: Expr; ops: string[]; rest: Expr[] }
  | { k: "ifexp"; line: number; test: Expr; body: Expr; orelse: Expr }
  | { k: "list" | "tuple" | "set"; line: number; items: Expr[] }
  | { k: "dict"; line: number; entries: [Expr, Expr][] }
  | { k: "fstring"; line: number; parts: (string | { e: Expr; conv: "s" | "r" | null; spec: string })[] }
  | { k: "comp"; line: number; kind: "list" | "set" | "gen" | "dict"; elt: Expr; val: Expr | null; gens: Generator[] }
  | { k: "lambda"; line: number; params: string[]; defaults: (Expr | null)[]; body: Expr };

export interface Generator {
  target: Target;
  iter: Expr;
  ifs: Expr[];
}

export type Target =
  | { k: "name"; line: number; id: string }
  | { k: "tuple"; line: number; items: Target[] }
  | { k: "attr"; line: number; obj: Expr; name: string }
  | { k: "index"; line: number; obj: Expr; index: Expr };

export type Stmt =
  | { k: "assign"; line: number; targets: Target[]; value: Expr }
  | { k: "augassign"; line: number; target: Target; op: string; value: Expr }
  /** An annotated name with an optional value (class fields; `x: int = 3` in a function). */
  | { k: "annassign"; line: number; target: Target; annotation: Expr; value: Expr | null }
  | { k: "if"; line: number; test: Expr; body: Stmt[]; orelse: Stmt[] }
  | { k: "for"; line: number; target: Target; iter: Expr; body: Stmt[] }
  /** Bounded like everything else by the step budget. */
  | { k: "while"; line: number; test: Expr; body: Stmt[] }
  | { k: "try"; line: number; body: Stmt[]; handlers: Handler[]; orelse: Stmt[]; final: Stmt[] }
  | { k: "raise"; line: number; exc: Expr | null }
  | { k: "assert"; line: number; test: Expr; msg: Expr | null }
  | { k: "return"; line: number; value: Expr | null }
  | { k: "expr"; line: number; e: Expr }
  | { k: "pass" | "break" | "continue"; line: number }
  | ({ k: "def"; line: number; name: string } & FunctionDef)
  | { k: "class"; line: number; name: string; bases: Expr[]; body: Stmt[] }
  /** Imports from karenina, pydantic and typing: kept only so a module reads as written. */
  | { k: "import"; line: number; module: string };

/** `except [types] [as name]:` — types null catches every catchable error. */
export interface Handler {
  types: Expr | null;
  name: string | null;
  body: Stmt[];
}

/** A function or method: parameter names, their default expressions (null: required), body. */
export interface FunctionDef {
  params: string[];
  defaults: (Expr | null)[];
  body: Stmt[];
}

/** A construct outside the subset, found while parsing: the import error names it and its line. */
export class UnsupportedConstruct extends Error {
  constructor(
    readonly line: number,
    readonly construct: string,
    detail?: string,
  ) {
    super(`line ${line}: ${construct} is outside the supported Python subset${detail ? ` (${detail})` : ""}`);
  }
}
