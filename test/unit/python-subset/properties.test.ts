import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileTemplate, instantiate, runVerify } from "../../../src/templates/python-subset";
import { fromJson, toJson } from "../../../src/templates/python-subset/values";

/** Evaluates `expr` with the given locals (as verify()'s body sees them). */
function run(expr: string, locals: Record<string, unknown>): unknown {
  const assigns = Object.keys(locals)
    .map((k) => `        ${k} = self.${k}\n`)
    .join("");
  const fields = Object.keys(locals)
    .map((k) => `    ${k}: str = Field(description="${k}")\n`)
    .join("");
  const c = compileTemplate(`class Answer(BaseAnswer):\n${fields}    def verify(self):\n${assigns}        return ${expr}\n`);
  if (!c.ok) throw new Error(c.error);
  const { interp, self } = instantiate(c.template, locals);
  for (const [k, v] of Object.entries(locals)) self.attrs.set(k, fromJson(v));
  return toJson(interp.callFunction(c.template.methods.get("verify")!, [self]));
}

describe("Python subset: properties", () => {
  it("floor division and modulo follow Python: (a // b) * b + a % b == a, and a % b has b's sign", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e6, max: 1e6 }),
        fc.integer({ min: -1000, max: 1000 }).filter((b) => b !== 0),
        (a, b) => {
          expect(run("(a // b) * b + a % b == a and (a % b == 0 or (a % b > 0) == (b > 0))", { a, b })).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("strip is idempotent, split() leaves no empty or padded tokens, join(split()) collapses whitespace", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "B", " ", "\t", "\n", ",", "é") }), (s) => {
        expect(run("s.strip() == s.strip().strip()", { s })).toBe(true);
        expect(run("all(t and t == t.strip() for t in s.split())", { s })).toBe(true);
        expect(run("' '.join(s.split())", { s })).toBe(
          s
            .split(/[ \t\n]+/)
            .filter(Boolean)
            .join(" "),
        );
      }),
      { numRuns: 60 },
    );
  });

  it("sorted() gives an ordered permutation, and chained comparisons agree with their expansion", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 12 }),
        fc.integer(),
        fc.integer(),
        fc.integer(),
        (xs, a, b, c) => {
          expect(run("sorted(xs)", { xs })).toEqual([...xs].sort((p, q) => p - q));
          expect(run("(a < b <= c) == (a < b and b <= c)", { a, b, c })).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("Python subset: hostile input never crashes", () => {
  const TOKENS = [
    "x",
    "self",
    ".",
    "correct",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    ":",
    ",",
    "'a'",
    "1",
    "0",
    "-",
    "+",
    "*",
    "/",
    "//",
    "%",
    "**",
    "==",
    "<",
    "in",
    "not",
    "and",
    "or",
    "if",
    "else",
    "for",
    "lambda",
    "None",
    "True",
    "len",
    "sorted",
    "re",
    "import",
    "=",
    "\n        ",
    " ",
  ];
  const soup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 25 }).map((ts) => ts.join(" "));

  it("compiles or refuses any token soup, and a compiled one runs to an outcome, never a throw", () => {
    fc.assert(
      fc.property(soup, soup, (a, b) => {
        const src = `import re\nclass Answer(BaseAnswer):\n    x: str = Field(description="x")\n    def model_post_init(self, __context):\n        self.correct = {"x": 1}\n    def verify(self):\n        v = ${a}\n        return ${b}\n`;
        const c = compileTemplate(src);
        if (!c.ok) {
          expect(c.error).toMatch(/^line \d+: /);
          return;
        }
        const out = runVerify(c.template, { x: "abc" }, 20_000);
        expect(typeof out.ok).toBe("boolean");
      }),
      { numRuns: 300 },
    );
  });
});
