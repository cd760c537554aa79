/**
 * Expressions: `@lezer/python` syntax nodes → the subset's `Expr`. Unknown node kinds are refused
 * with their line, so a template never half-runs.
 */
import type { SyntaxNode } from "@lezer/common";
import { type Expr, type Generator, type Target, UnsupportedConstruct } from "./ast";
import { decodeStringLiteral, parseNumber } from "./literals";

/** Reads source text and line numbers for the nodes of one parse. */
export class Src {
  private readonly lineStarts: number[] = [0];
  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text[i] === "\n") this.lineStarts.push(i + 1);
  }
  line(pos: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
  of(node: SyntaxNode): string {
    return this.text.slice(node.from, node.to);
  }
}

/** Punctuation, operators and keywords: tokens, not operands. */
const TOKEN_NAMES = new Set(["ArithOp", "CompareOp", "AssignOp", "UpdateOp", "BitOp", "LogicOp", "Comment", "Escape"]);
const isToken = (n: SyntaxNode) => TOKEN_NAMES.has(n.name) || !/^[A-Z]/.test(n.name);

export function children(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) if (c.name !== "Comment") out.push(c);
  return out;
}
export const operands = (node: SyntaxNode) => children(node).filter((c) => !isToken(c));

/** Python's names for what a node is, for error messages a template author recognises. */
const CONSTRUCT_NAMES: Record<string, string> = {
  AwaitExpression: "await",
  YieldExpression: "yield",
  NamedExpression: "assignment expression (:=)",
  WhileStatement: "while loop",
  TryStatement: "try/except",
  WithStatement: "with statement",
  DeleteStatement: "del",
  RaiseStatement: "raise",
  AssertStatement: "assert",
  GlobalStatement: "global",
  NonlocalStatement: "nonlocal",
  DecoratedStatement: "decorator",
  MatchStatement: "match statement",
  ScopeStatement: "global/nonlocal",
  YieldStatement: "yield",
};

export function unsupported(src: Src, node: SyntaxNode, detail?: string): UnsupportedConstruct {
  const name = CONSTRUCT_NAMES[node.name] ?? (node.type.isError ? "syntax error" : node.name);
  return new UnsupportedConstruct(
    src.line(node.from),
    name,
    detail ?? (node.type.isError ? `near ${JSON.stringify(src.of(node).slice(0, 30))}` : undefined),
  );
}

export function expr(src: Src, node: SyntaxNode): Expr {
  const line = src.line(node.from);
  const kids = () => operands(node);
  switch (node.name) {
    case "Number":
      return { k: "const", line, v: parseNumber(src.of(node), line) };
    case "String":
      return { k: "const", line, v: decodeStringLiteral(src.of(node), line) };
    case "ContinuedString":
    case "FormatString":
      return strings(src, node);
    case "Boolean":
      return { k: "const", line, v: src.of(node) === "True" };
    case "None":
      return { k: "const", line, v: null };
    case "VariableName":
      return { k: "name", line, id: src.of(node) };
    case "ParenthesizedExpression": {
      const inner = kids();
      if (inner.length !== 1) throw unsupported(src, node);
      return expr(src, inner[0]!);
    }
    case "TupleExpression":
      return { k: "tuple", line, items: kids().map((c) => expr(src, c)) };
    case "ArrayExpression":
      return { k: "list", line, items: kids().map((c) => expr(src, c)) };
    case "SetExpression":
      return { k: "set", line, items: kids().map((c) => expr(src, c)) };
    case "DictionaryExpression":
      return dict(src, node);
    case "ArrayComprehensionExpression":
      return comprehension(src, node, "list");
    case "SetComprehensionExpression":
      return comprehension(src, node, "set");
    case "ComprehensionExpression":
      return comprehension(src, node, "gen");
    case "DictionaryComprehensionExpression":
      return comprehension(src, node, "dict");
    case "MemberExpression":
      return member(src, node);
    case "CallExpression":
      return call(src, node);
    case "UnaryExpression":
      return unary(src, node);
    case "BinaryExpression":
      return binary(src, node);
    case "LambdaExpression": {
      const kids = children(node);
      const { params, defaults } = paramsOf(src, children(kids.find((c) => c.name === "ParamList")!));
      return { k: "lambda", line, params, defaults, body: expr(src, kids[kids.length - 1]!) };
    }
    case "ConditionalExpression": {
      const [body, test, orelse] = kids();
      if (!body || !test || !orelse) throw unsupported(src, node);
      return { k: "ifexp", line, test: expr(src, test), body: expr(src, body), orelse: expr(src, orelse) };
    }
    default:
      throw unsupported(src, node);
  }
}

function dict(src: Src, node: SyntaxNode): Expr {
  const entries: [Expr, Expr][] = [];
  const kids = children(node);
  for (let i = 0; i < kids.length; i++) {
    const k = kids[i]!;
    if (isToken(k)) {
      if (src.of(k) === "**") throw new UnsupportedConstruct(src.line(k.from), "dict unpacking (**)");
      continue;
    }
    const colon = kids[i + 1];
    const value = kids[i + 2];
    if (!colon || src.of(colon) !== ":" || !value) throw unsupported(src, node);
    entries.push([expr(src, k), expr(src, value)]);
    i += 2;
  }
  return { k: "dict", line: src.line(node.from), entries };
}

/** `elt [: val] (for target in iter (if cond)*)+` — the same walk for every comprehension kind. */
function comprehension(src: Src, node: SyntaxNode, kind: "list" | "set" | "gen" | "dict", from?: SyntaxNode[]): Expr {
  const kids = (from ?? children(node)).filter((c) => !["(", ")", "[", "]", "{", "}"].includes(c.name));
  const line = src.line(node.from);
  let i = 0;
  const next = () => kids[i++];
  const elt = expr(src, next()!);
  let val: Expr | null = null;
  if (kind === "dict") {
    if (next()?.name !== ":") throw unsupported(src, node);
    val = expr(src, next()!);
  }
  const gens: Generator[] = [];
  while (i < kids.length) {
    const kw = next()!;
    if (kw.name === "async") throw new UnsupportedConstruct(src.line(kw.from), "async comprehension");
    if (kw.name === "for") {
      const targets: SyntaxNode[] = [];
      while (i < kids.length && kids[i]!.name !== "in") {
        const t = next()!;
        if (t.name !== ",") targets.push(t);
      }
      next(); // in
      const iter = next();
      if (!iter || targets.length === 0) throw unsupported(src, node);
      gens.push({ target: targetOf(src, targets), iter: expr(src, iter), ifs: [] });
    } else if (kw.name === "if") {
      const cond = next();
      if (!cond || gens.length === 0) throw unsupported(src, node);
      gens[gens.length - 1]!.ifs.push(expr(src, cond));
    } else {
      throw unsupported(src, kw);
    }
  }
  return { k: "comp", line, kind, elt, val, gens };
}

function member(src: Src, node: SyntaxNode): Expr {
  const kids = children(node);
  const line = src.line(node.from);
  const obj = expr(src, kids[0]!);
  if (kids[1]?.name === ".") return { k: "attr", line, obj, name: src.of(kids[2]!) };
  const inner = kids.slice(2, -1);
  if (inner.some((c) => c.name === ":")) {
    const parts: (Expr | null)[] = [null];
    for (const c of inner) {
      if (c.name === ":") parts.push(null);
      else parts[parts.length - 1] = expr(src, c);
    }
    return { k: "slice", line, obj, lo: parts[0] ?? null, hi: parts[1] ?? null, step: parts[2] ?? null };
  }
  const idx = inner.filter((c) => c.name !== ",");
  if (idx.length === 1 && !inner.some((c) => c.name === ",")) return { k: "index", line, obj, index: expr(src, idx[0]!) };
  return { k: "index", line, obj, index: { k: "tuple", line, items: idx.map((c) => expr(src, c)) } };
}

function call(src: Src, node: SyntaxNode): Expr {
  const [fnNode, argList] = children(node);
  const line = src.line(node.from);
  const fn = expr(src, fnNode!);
  const kids = children(argList!).filter((c) => c.name !== "(" && c.name !== ")");
  if (kids.some((c) => c.name === "for")) {
    return { k: "call", line, fn, args: [comprehension(src, argList!, "gen", kids)], kwargs: [] };
  }
  const args: Expr[] = [];
  const kwargs: [string, Expr][] = [];
  for (let i = 0; i < kids.length; i++) {
    const c = kids[i]!;
    if (c.name === ",") continue;
    if (c.name === "*" || c.name === "**" || src.of(c) === "*" || src.of(c) === "**") {
      throw new UnsupportedConstruct(src.line(c.from), "argument unpacking (* or **)");
    }
    if (kids[i + 1]?.name === "AssignOp") {
      kwargs.push([src.of(c), expr(src, kids[i + 2]!)]);
      i += 2;
    } else args.push(expr(src, c));
  }
  return { k: "call", line, fn, args, kwargs };
}

function unary(src: Src, node: SyntaxNode): Expr {
  const [op, operand] = children(node);
  const text = src.of(op!);
  if (text !== "-" && text !== "+" && text !== "not") throw new UnsupportedConstruct(src.line(node.from), `unary operator ${text}`);
  return { k: "unary", line: src.line(node.from), op: text, e: expr(src, operand!) };
}

const COMPARE = new Set(["==", "!=", "<", ">", "<=", ">=", "in", "not in", "is", "is not"]);
const ARITH = new Set(["+", "-", "*", "/", "//", "%", "**", "|", "&"]);

function binary(src: Src, node: SyntaxNode): Expr {
  const ops = operands(node);
  const [lNode, rNode] = [ops[0]!, ops[ops.length - 1]!];
  const line = src.line(node.from);
  // The operator is whatever source sits between the operands (e.g. `not in`, `is not`).
  const op = src.text.slice(lNode.to, rNode.from).replace(/\\\n/g, " ").replace(/\s+/g, " ").trim();
  const l = expr(src, lNode);
  const r = expr(src, rNode);
  if (op === "and" || op === "or") return { k: "bool", line, op, l, r };
  if (COMPARE.has(op)) {
    if (l.k === "cmp" && lNode.name === "BinaryExpression") return { ...l, ops: [...l.ops, op], rest: [...l.rest, r] };
    return { k: "cmp", line, first: l, ops: [op], rest: [r] };
  }
  if (ARITH.has(op)) return { k: "bin", line, op, l, r };
  throw new UnsupportedConstruct(line, `operator ${op}`);
}

/** F-strings and implicitly concatenated literals become one f-string expression. */
function strings(src: Src, node: SyntaxNode): Expr {
  const line = src.line(node.from);
  const pieces = node.name === "ContinuedString" ? children(node) : [node];
  const parts: (string | { e: Expr; conv: "s" | "r" | null; spec: string })[] = [];
  for (const piece of pieces) {
    if (piece.name === "String") {
      parts.push(decodeStringLiteral(src.of(piece), line));
      continue;
    }
    // FormatString: literal text between the replacement fields, decoded like a plain string.
    const text = src.of(piece);
    const prefix = /^[a-zA-Z]*/.exec(text)![0];
    const q = text.slice(prefix.length).startsWith('"""') || text.slice(prefix.length).startsWith("'''") ? 3 : 1;
    const quote = text.slice(prefix.length, prefix.length + q);
    const raw = prefix.replace(/[fF]/, "");
    let at = piece.from + prefix.length + q;
    const lit = (to: number) => {
      const chunk = src.text.slice(at, to).replace(/\{\{/g, "{").replace(/\}\}/g, "}");
      if (chunk) parts.push(decodeStringLiteral(raw + quote + chunk + quote, line));
    };
    for (const rep of children(piece).filter((c) => c.name === "FormatReplacement")) {
      lit(rep.from);
      const inner = children(rep).filter((c) => c.name !== "{" && c.name !== "}");
      const specNode = inner.find((c) => c.name === "FormatSpec");
      const spec = specNode ? src.of(specNode).slice(1) : "";
      if (spec.includes("{")) throw new UnsupportedConstruct(src.line(rep.from), "nested replacement field in an f-string format spec");
      const conv = inner.find((c) => c.name === "FormatConversion");
      const e = inner.find((c) => c.name !== "FormatConversion" && c.name !== "FormatSpec");
      if (!e) throw unsupported(src, rep);
      const convText = conv ? src.of(conv).slice(1) : null;
      if (convText !== null && convText !== "s" && convText !== "r")
        throw new UnsupportedConstruct(src.line(rep.from), `f-string conversion !${convText}`);
      parts.push({ e: expr(src, e), conv: convText, spec });
      at = rep.to;
    }
    lit(piece.to - q);
  }
  if (parts.every((p) => typeof p === "string")) return { k: "const", line, v: parts.join("") };
  return { k: "fstring", line, parts };
}

/** Assignment and loop targets: names, tuples of targets, `obj.attr`, `obj[key]`. */
export function targetOf(src: Src, nodes: SyntaxNode[]): Target {
  if (nodes.length > 1) return { k: "tuple", line: src.line(nodes[0]!.from), items: nodes.map((n) => targetOf(src, [n])) };
  const node = nodes[0]!;
  if (node.name === "TupleExpression" || node.name === "ParenthesizedExpression" || node.name === "ArrayExpression") {
    const items = operands(node);
    if (node.name === "ParenthesizedExpression" && items.length === 1) return targetOf(src, items);
    return { k: "tuple", line: src.line(node.from), items: items.map((n) => targetOf(src, [n])) };
  }
  const e = expr(src, node);
  if (e.k === "name" || e.k === "attr" || e.k === "index") return e;
  throw new UnsupportedConstruct(src.line(node.from), "assignment target", src.of(node).slice(0, 30));
}

/** A parameter list (def or lambda): names and default expressions; `*args`, `**kw`, `/` refused. */
export function paramsOf(src: Src, paramKids: SyntaxNode[]): { params: string[]; defaults: (Expr | null)[] } {
  const params: string[] = [];
  const defaults: (Expr | null)[] = [];
  for (let i = 0; i < paramKids.length; i++) {
    const p = paramKids[i]!;
    if (p.name === "VariableName") {
      params.push(src.of(p));
      defaults.push(null);
    } else if (p.name === "AssignOp") defaults[defaults.length - 1] = expr(src, paramKids[++i]!);
    else if (src.of(p) === "*" || src.of(p) === "**" || src.of(p) === "/") {
      throw new UnsupportedConstruct(src.line(p.from), "*args/**kwargs parameters");
    }
  }
  return { params, defaults };
}
