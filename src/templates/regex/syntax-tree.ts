/**
 * The syntax tree the parser (parse.ts) builds and the compiler (compile.ts) reads, the error the
 * parser refuses a pattern with, and the tree's width (Python's getwidth), which both need:
 * the parser to refuse a look-behind that is not fixed-width, the compiler to size its loops.
 */

export type ClassName = "d" | "D" | "w" | "W" | "s" | "S";
export type SetItem = { t: "range"; lo: number; hi: number } | { t: "class"; cls: ClassName };
export type AssertKind = "bol" | "eol" | "start" | "end" | "wb" | "nwb";

export type Node =
  | { t: "empty" }
  | { t: "lit"; cp: number; i: boolean; a: boolean }
  | { t: "any"; dotall: boolean }
  | { t: "set"; neg: boolean; items: SetItem[]; i: boolean; a: boolean }
  | { t: "cat"; items: Node[] }
  | { t: "alt"; items: Node[] }
  | { t: "group"; index: number; node: Node }
  | { t: "rep"; node: Node; min: number; max: number; lazy: boolean }
  | { t: "at"; kind: AssertKind; multiline: boolean; a: boolean }
  | { t: "look"; behind: boolean; neg: boolean; node: Node; width: number }
  | { t: "ref"; index: number; i: boolean };

export interface Parsed {
  node: Node;
  groupCount: number;
  names: Map<string, number>;
  /** true when the tree needs the backtracking engine (backreferences or lookaround). */
  needsBacktracking: boolean;
}

export class PatternError extends Error {}

/** No upper bound: a `rep`'s max for `*`, `+` and `{n,}`, and the max width of what they match. */
export const MAX_WIDTH = Number.POSITIVE_INFINITY;

/** [min, max] width in code points (max may be Infinity); Python's getwidth. */
export function width(node: Node, groups: Map<number, [number, number]>): [number, number] {
  switch (node.t) {
    case "empty":
    case "at":
    case "look":
      return [0, 0];
    case "lit":
    case "any":
    case "set":
      return [1, 1];
    case "ref":
      return groups.get(node.index) ?? [0, MAX_WIDTH];
    case "group":
      return width(node.node, groups);
    case "cat":
      return node.items.reduce<[number, number]>(
        ([lo, hi], n) => {
          const [a, b] = width(n, groups);
          return [lo + a, hi + b];
        },
        [0, 0],
      );
    case "alt": {
      const ws = node.items.map((n) => width(n, groups));
      return [Math.min(...ws.map((w) => w[0])), Math.max(...ws.map((w) => w[1]))];
    }
    case "rep": {
      const [a, b] = width(node.node, groups);
      return [a * node.min, node.max === MAX_WIDTH ? (b === 0 ? 0 : MAX_WIDTH) : b * node.max];
    }
  }
}
