/**
 * Statements: a Python module → the subset's `Stmt[]`, through `@lezer/python` (a real parser;
 * no regexes over source). The first construct outside the subset throws `UnsupportedConstruct`
 * naming it and its line.
 */
import { parser } from "@lezer/python";
import type { SyntaxNode } from "@lezer/common";
import { type Expr, type Stmt, UnsupportedConstruct } from "./ast";
import { children, expr, operands, paramsOf, Src, targetOf, unsupported } from "./parse-expr";

/** Modules whose imports a template may carry: their names are provided (or ignored) here. */
const IGNORED_IMPORT_ROOTS = new Set(["karenina", "pydantic", "typing", "typing_extensions", "__future__", "datetime"]);

export function parseModule(source: string): Stmt[] {
  const src = new Src(source);
  const tree = parser.parse(source);
  let firstError: SyntaxNode | null = null;
  tree.iterate({
    enter: (n) => {
      if (n.type.isError && !firstError) firstError = n.node;
      return !firstError;
    },
  });
  if (firstError) throw unsupported(src, firstError);
  return block(src, operands(tree.topNode));
}

function block(src: Src, nodes: SyntaxNode[]): Stmt[] {
  return nodes.flatMap((n) => statement(src, n));
}

function body(src: Src, node: SyntaxNode | undefined): Stmt[] {
  if (!node || node.name !== "Body") throw new UnsupportedConstruct(node ? src.line(node.from) : 0, "block");
  return block(src, operands(node));
}

function statement(src: Src, node: SyntaxNode): Stmt[] {
  const line = src.line(node.from);
  const kids = children(node);
  switch (node.name) {
    case "StatementGroup":
      return block(src, operands(node));
    case "ExpressionStatement": {
      const es = operands(node);
      const e: Expr = es.length === 1 ? expr(src, es[0]!) : { k: "tuple", line, items: es.map((x) => expr(src, x)) };
      return [{ k: "expr", line, e }];
    }
    case "AssignStatement":
      return [assign(src, node)];
    case "UpdateStatement": {
      const op = kids.find((c) => c.name === "UpdateOp")!;
      const [target, value] = operands(node);
      return [{ k: "augassign", line, target: targetOf(src, [target!]), op: src.of(op).slice(0, -1), value: expr(src, value!) }];
    }
    case "IfStatement":
      return [ifStatement(src, kids, line)];
    case "ForStatement": {
      if (kids.some((c) => c.name === "else")) throw new UnsupportedConstruct(line, "for/else");
      const inAt = kids.findIndex((c) => c.name === "in");
      const targets = kids.slice(1, inAt).filter((c) => c.name !== ",");
      const iters = kids.slice(inAt + 1, -1).filter((c) => c.name !== ",");
      const iter: Expr = iters.length === 1 ? expr(src, iters[0]!) : { k: "tuple", line, items: iters.map((c) => expr(src, c)) };
      return [{ k: "for", line, target: targetOf(src, targets), iter, body: body(src, kids[kids.length - 1]) }];
    }
    case "WhileStatement": {
      if (kids.some((c) => c.name === "else")) throw new UnsupportedConstruct(line, "while/else");
      return [{ k: "while", line, test: expr(src, kids[1]!), body: body(src, kids[2]) }];
    }
    case "TryStatement":
      return [tryStatement(src, kids, line)];
    case "RaiseStatement": {
      const es = operands(node);
      if (kids.some((c) => c.name === "from")) throw new UnsupportedConstruct(line, "raise … from");
      return [{ k: "raise", line, exc: es[0] ? expr(src, es[0]) : null }];
    }
    case "AssertStatement": {
      const es = operands(node);
      return [{ k: "assert", line, test: expr(src, es[0]!), msg: es[1] ? expr(src, es[1]) : null }];
    }
    case "ReturnStatement": {
      const es = operands(node);
      const value: Expr | null =
        es.length === 0 ? null : es.length === 1 ? expr(src, es[0]!) : { k: "tuple", line, items: es.map((x) => expr(src, x)) };
      return [{ k: "return", line, value }];
    }
    case "PassStatement":
      return [{ k: "pass", line }];
    case "BreakStatement":
      return [{ k: "break", line }];
    case "ContinueStatement":
      return [{ k: "continue", line }];
    case "FunctionDefinition":
      return [functionDef(src, node, kids, line)];
    case "ClassDefinition": {
      const name = src.of(kids.find((c) => c.name === "VariableName")!);
      const argList = kids.find((c) => c.name === "ArgList");
      const bases = argList ? operands(argList).map((b) => expr(src, b)) : [];
      return [
        {
          k: "class",
          line,
          name,
          bases,
          body: body(
            src,
            kids.find((c) => c.name === "Body"),
          ),
        },
      ];
    }
    case "ImportStatement": {
      const module =
        src
          .of(node)
          .replace(/^\s*(from|import)\s+/, "")
          .split(/[\s.,]/)[0] ?? "";
      // `import re` / `import math` bring the subset's modules (re-module.ts, math-module.ts).
      const own = /^import\s+(re|math)\s*$/.exec(src.of(node));
      if (own) return [{ k: "import", line, module: own[1]! }];
      if (!IGNORED_IMPORT_ROOTS.has(module)) {
        throw new UnsupportedConstruct(
          line,
          `import of ${module}`,
          "only `import re`, `import math` and imports from karenina, pydantic and typing are allowed",
        );
      }
      return [{ k: "import", line, module }];
    }
    default:
      throw unsupported(src, node);
  }
}

function assign(src: Src, node: SyntaxNode): Stmt {
  const line = src.line(node.from);
  const kids = children(node);
  // Segments between `=` signs: every segment but the last is a target.
  const segments: SyntaxNode[][] = [[]];
  for (const c of kids) {
    if (c.name === "AssignOp") segments.push([]);
    else if (c.name !== ",") segments[segments.length - 1]!.push(c);
  }
  const typeDef = segments[0]!.find((c) => c.name === "TypeDef");
  if (typeDef) {
    const target = targetOf(
      src,
      segments[0]!.filter((c) => c !== typeDef),
    );
    const annotation = expr(src, operands(typeDef)[0]!);
    const valueNodes = segments[1];
    return { k: "annassign", line, target, annotation, value: valueNodes ? exprOf(src, valueNodes, line) : null };
  }
  const value = exprOf(src, segments[segments.length - 1]!, line);
  const targets = segments.slice(0, -1).map((seg) => targetOf(src, seg));
  return { k: "assign", line, targets, value };
}

function exprOf(src: Src, nodes: SyntaxNode[], line: number): Expr {
  return nodes.length === 1 ? expr(src, nodes[0]!) : { k: "tuple", line, items: nodes.map((n) => expr(src, n)) };
}

function ifStatement(src: Src, kids: SyntaxNode[], line: number): Stmt {
  // if test Body (elif test Body)* (else Body)?  → nested ifs, innermost first.
  const branches: { test: Expr; body: Stmt[]; line: number }[] = [];
  let orelse: Stmt[] = [];
  for (let i = 0; i < kids.length; i++) {
    const k = kids[i]!;
    if (k.name === "if" || k.name === "elif") {
      branches.push({ test: expr(src, kids[i + 1]!), body: body(src, kids[i + 2]), line: src.line(k.from) });
      i += 2;
    } else if (k.name === "else") {
      orelse = body(src, kids[i + 1]);
      i += 1;
    }
  }
  let tail = orelse;
  for (let b = branches.length - 1; b >= 0; b--) {
    const br = branches[b]!;
    tail = [{ k: "if", line: b === 0 ? line : br.line, test: br.test, body: br.body, orelse: tail }];
  }
  return tail[0]!;
}

function functionDef(src: Src, node: SyntaxNode, kids: SyntaxNode[], line: number): Stmt {
  if (kids[0]?.name === "async") throw new UnsupportedConstruct(line, "async def");
  const name = src.of(kids.find((c) => c.name === "VariableName")!);
  const { params, defaults } = paramsOf(src, children(kids.find((c) => c.name === "ParamList")!));
  void node;
  return {
    k: "def",
    line,
    name,
    params,
    defaults,
    body: body(
      src,
      kids.find((c) => c.name === "Body"),
    ),
  };
}

/** try Body (except [types [as name]] Body)* [else Body] [finally Body] */
function tryStatement(src: Src, kids: SyntaxNode[], line: number): Stmt {
  const out: Extract<Stmt, { k: "try" }> = { k: "try", line, body: body(src, kids[1]), handlers: [], orelse: [], final: [] };
  for (let i = 2; i < kids.length; i++) {
    const k = kids[i]!;
    if (k.name === "except") {
      if (kids[i + 1]?.name === "*") throw new UnsupportedConstruct(src.line(k.from), "except*");
      let types: Expr | null = null;
      let name: string | null = null;
      let j = i + 1;
      if (kids[j] && kids[j]!.name !== "Body" && kids[j]!.name !== "as") types = expr(src, kids[j++]!);
      if (kids[j]?.name === "as") {
        name = src.of(kids[j + 1]!);
        j += 2;
      }
      out.handlers.push({ types, name, body: body(src, kids[j]) });
      i = j;
    } else if (k.name === "else") out.orelse = body(src, kids[++i]);
    else if (k.name === "finally") out.final = body(src, kids[++i]);
  }
  return out;
}
