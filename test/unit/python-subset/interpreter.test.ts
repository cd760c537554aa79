import { describe, expect, it } from "vitest";
import { compileTemplate, runVerify, staticState, verifyPython } from "../../../src/templates/python-subset";

const HEADER = "from karenina.schemas.entities import BaseAnswer\nfrom pydantic import Field\nfrom typing import List, Optional\n\n";

function template(body: string, fields = '    x: str = Field(description="x")\n') {
  const src = `${HEADER}class Answer(BaseAnswer):\n${fields}\n${body}`;
  const c = compileTemplate(src);
  if (!c.ok) throw new Error(c.error);
  return c.template;
}

/** Runs `verify()` whose body returns `expr`, with the given parsed fields. */
function evalExpr(expr: string, parsed: Record<string, unknown> = {}, setup = "") {
  const t = template(
    `    def verify(self):\n${setup
      .split("\n")
      .filter(Boolean)
      .map((l) => `        ${l}\n`)
      .join("")}        return ${expr}\n`,
  );
  const { interp, self } = await_instance(t, parsed);
  return interp.callFunction(t.methods.get("verify")!, [self]);
}
import { instantiate } from "../../../src/templates/python-subset";
import { toJson } from "../../../src/templates/python-subset/values";
function await_instance(t: ReturnType<typeof template>, parsed: Record<string, unknown>) {
  return instantiate(t, parsed);
}
const py = (expr: string, parsed: Record<string, unknown> = {}, setup = "") => toJson(evalExpr(expr, parsed, setup));

describe("Python subset: expressions", () => {
  it.each([
    ["1 + 2 * 3", 7],
    ["7 // 2", 3],
    ["-7 // 2", -4],
    ["-7 % 3", 2],
    ["7 / 2", 3.5],
    ["2 ** 10", 1024],
    ["-2 ** 2", -4],
    ["1 < 2 <= 2 < 3", true],
    ["1 < 3 < 2", false],
    ["'a' in 'cat' and 'z' not in 'cat'", true],
    ["None is None and 1 is not None", true],
    ["not [] and not {} and not ''", true],
    ["0 or '' or 'x'", "x"],
    ["'yes' if 2 > 1 else 'no'", "yes"],
    ["[i * 2 for i in [1, 2, 3] if i != 2]", [2, 6]],
    ["sorted({c.lower() for c in ['A', 'a', 'B']})", ["a", "b"]],
    ["sorted(['bb', 'a', 'ccc'], key=lambda s: -len(s))", ["ccc", "bb", "a"]],
    [
      "sorted([(1, 'b'), (0, 'z'), (1, 'a')], key=lambda p: p[0], reverse=True)",
      [
        [1, "b"],
        [1, "a"],
        [0, "z"],
      ],
    ],
    ["max(['x', 'yyy', 'zz'], key=len), min([3, -5, 4], key=abs)", ["yyy", 3]],
    [
      "list(map(lambda a, b=10: a + b, [1, 2])), list(filter(None, [0, 1, '', 'a']))",
      [
        [11, 12],
        [1, "a"],
      ],
    ],
    ["{k: v for k, v in [('a', 1), ('b', 2)]}", { a: 1, b: 2 }],
    ["sum(i for i in range(5) if i % 2 == 0)", 6],
    ["any(x > 2 for x in [1, 3])", true],
    ["all([])", true],
    ["len('héllo'), abs(-3), min(3, 1, 2), max([4, 9])", [5, 3, 1, 9]],
    ["round(2.5), round(3.5), round(2.675, 2), round(-0.5), round(0.125, 2), round(1234.5, -1)", [2, 4, 2.67, 0, 0.12, 1230]],
    ["int('42') + int(3.9) + float('1.5')", 46.5],
    ["str(3) + str(True) + str(None) + str([1, 'a'])", "3TrueNone[1, 'a']"],
    ["list(set([1, 1, 2]))", [1, 2]],
    ["'  Hello World  '.strip().lower().replace('world', 'there')", "hello there"],
    ["'a,b,,c'.split(',')", ["a", "b", "", "c"]],
    ["' a  b '.split()", ["a", "b"]],
    ["'-'.join(['x', 'y'])", "x-y"],
    ["'Abc'.startswith(('x', 'A')) and 'abc'.endswith('bc')", true],
    ["'xxhixx'.strip('x')", "hi"],
    ["'abc'[::-1] + 'abcdef'[1:3] + 'abc'[-1]", "cbabcc"],
    ["[1, 2, 3][1:]", [2, 3]],
    ["f'{1 + 1} and {\"q\"!r}'", "2 and 'q'"],
    ["'ab' 'cd'", "abcd"],
    ["'%s: %.2f (%d%%) %r|%-5s|%05d|%+.1e' % ('a', 3.14159, 42, 'q', 'ab', 42, 12345.0)", "a: 3.14 (42%) 'q'|ab   |00042|+1.2e+04"],
    ["('%s' % 'solo') + ('%s %s' % ('a', [1, 'b']))", "soloa [1, 'b']"],
    ["'{} is {}; {0}/{name} {{x}}'.format('a', 2, name=None)", "a is 2; a/None {x}"],
    ["r'\\d+'", "\\d+"],
    ["'\\x41\\n'", "A\n"],
    ["{1, 2} | {3}", [1, 2, 3]],
    ["{'a': 1}.get('b', 5)", 5],
    [
      "'BCL2-human'.partition('-'), 'v1.2'.removeprefix('v'), 'a.txt'.removesuffix('.txt'), '7'.rjust(3, '0')",
      [["BCL2", "-", "human"], "1.2", "a", "007"],
    ],
    ["isinstance('s', str) and isinstance(1, (int, float)) and not isinstance(1, str)", true],
    ["[a + b for a, b in zip([1, 2], [10, 20])]", [11, 22]],
    ["list(enumerate(['a']))", [[0, "a"]]],
    ["1 == 1.0 == True", true],
    ["type('a') == str and type(None) == type(None) and type([]) != type({})", true],
    ["print('debug', 1), pow(2, 10), divmod(-7, 2), chr(65) + str(ord('a'))", [null, 1024, [-4, 1], "A97"]],
    ["len('a😀b'), 'a😀b'[1], 'a😀b'[-1], 'a😀b'[1:]", [3, "😀", "b", "😀b"]],
    ["'a\x1cb\ufeffc'.split()", ["a", "b\ufeffc"]],
    ["'\x85 x \xa0'.strip()", "x"],
    ["[1, [2]] == [1, [2]] and (1, 2) != [1, 2]", true],
  ])("evaluates %s", (expr, want) => {
    expect(py(expr)).toEqual(want);
  });

  it("reads fields and self.correct, and runs local assignment, if/elif/else and for", () => {
    const t = template(
      [
        "    def model_post_init(self, __context):",
        "        self.correct = {'x': 'Paris', 'n': [1, 2, 3]}",
        "    def verify(self):",
        "        total = 0",
        "        for v in self.correct['n']:",
        "            if v == 2:",
        "                continue",
        "            elif v > 2:",
        "                total += v * 10",
        "            else:",
        "                total += v",
        "        self.total = total",
        "        return self.x.strip().lower() == self.correct['x'].lower() and self.total == 31",
        "",
      ].join("\n"),
    );
    expect(runVerify(t, { x: " paris " })).toEqual({ ok: true, verify_result: true, verify_granular_result: null });
    expect(runVerify(t, { x: "Lyon" })).toEqual({ ok: true, verify_result: false, verify_granular_result: null });
  });

  it("returns verify_granular() clamped to [0, 1] and accepts ground_truth() returning the dict", () => {
    const t = template(
      [
        "    def ground_truth(self):",
        "        return {'x': 'a'}",
        "    def verify(self):",
        "        return self.x == self.correct['x']",
        "    def verify_granular(self):",
        "        return 0.5 if self.helper() else 0",
        "    def helper(self):",
        "        return self.x is not None",
        "",
      ].join("\n"),
    );
    expect(runVerify(t, { x: "a" })).toEqual({ ok: true, verify_result: true, verify_granular_result: 0.5 });
    expect(runVerify(t, {})).toEqual({ ok: true, verify_result: false, verify_granular_result: 0 });
  });

  it("reads self.correct and self.regex statically, from a test instance", () => {
    const t = template(
      "    def model_post_init(self, __context):\n        self.correct = {'x': 'BCL2'}\n        self.regex = {'ids': {'pattern': r'NCT\\d{8}', 'expected': 2, 'match_type': 'count'}}\n    def verify(self):\n        return True\n",
    );
    expect(staticState(t)).toEqual({ correct: { x: "BCL2" }, regex: { ids: { pattern: "NCT\\d{8}", expected: 2, match_type: "count" } } });
  });
});

describe("Python subset: failures are outcomes, never passes", () => {
  it("turns a Python exception into an error naming its type and line", () => {
    const t = template("    def verify(self):\n        return self.x.lower() == 'a'\n");
    const out = runVerify(t, { x: null });
    expect(out.ok).toBe(false);
    expect(!out.ok && out.error).toMatch(/AttributeError: 'NoneType' object has no attribute 'lower'.*line 9/);
    const z = runVerify(template("    def verify(self):\n        return 1 / 0\n"), {});
    expect(!z.ok && z.error).toMatch(/ZeroDivisionError/);
    const k = runVerify(template("    def verify(self):\n        return {}['missing']\n"), {});
    expect(!k.ok && k.error).toMatch(/KeyError: 'missing'/);
  });

  it("stops a runaway loop with the step budget, without a clock", () => {
    const t = template(
      "    def verify(self):\n        n = 0\n        for i in range(1000000):\n            for j in range(1000000):\n                n += 1\n        return True\n",
    );
    const out = runVerify(t, {}, 10_000);
    expect(out).toEqual({ ok: false, error: expect.stringMatching(/StepLimitExceeded/) });
  });

  it("refuses unbounded allocation", () => {
    const t = template("    def verify(self):\n        return len('x' * 10 ** 9) > 0\n");
    expect(runVerify(t, {})).toEqual({ ok: false, error: expect.stringMatching(/MemoryError/) });
  });

  it("refuses recursion past the step budget", () => {
    const t = template("    def verify(self):\n        return self.loop()\n    def loop(self):\n        return self.loop()\n");
    const out = runVerify(t, {});
    expect(out.ok).toBe(false);
  });

  it.each([
    ["    def verify(self):\n        with open('f') as f:\n            pass\n", "with statement", 9],
    ["    def verify(self):\n        yield 1\n", "yield", 9],
    ["    def verify(self):\n        global q\n        return q\n", "global/nonlocal", 9],
    ["    def verify(self):\n        import os\n        return True\n", "import of os", 9],
    ["    @property\n    def verify(self):\n        return True\n", "decorator", 8],
    ["    def verify(self):\n        return foo(*args)\n", "argument unpacking (* or **)", 9],
    ["    def verify(self)\n        return True\n", "syntax error", 8],
  ])("names the line and construct outside the subset (%#)", (body, construct, line) => {
    const c = compileTemplate(`${HEADER}class Answer(BaseAnswer):\n    x: str = Field(description="x")\n\n${body}`);
    expect(c.ok).toBe(false);
    if (!c.ok) {
      expect(c.construct).toBe(construct);
      expect(c.line).toBe(line);
      expect(c.error).toContain(`line ${line}`);
    }
  });

  it("refuses a nested model class", () => {
    const c = compileTemplate(
      `${HEADER}class Citation(BaseModel):\n    doi: str\n\nclass Answer(BaseAnswer):\n    c: Citation = Field(description="c")\n    def verify(self):\n        return True\n`,
    );
    expect(c.ok).toBe(false);
    if (!c.ok) expect(c.error).toMatch(/line 5: class Citation/);
  });

  it("serves the code verifier port: compile errors and runtime errors are ok:false", () => {
    const good = `${HEADER}class Answer(BaseAnswer):\n    n: int = Field(description="n")\n    def model_post_init(self, __context):\n        self.correct = {"n": 4}\n    def verify(self) -> bool:\n        return self.n == self.correct["n"]\n`;
    const req = { language: "python" as const, source: good, parsed: { n: 4 }, ground_truth: {}, raw_trace: "" };
    expect(verifyPython(req)).toEqual({ ok: true, verify_result: true, verify_granular_result: null, field_results: null });
    expect(verifyPython({ ...req, parsed: { n: 5 } })).toMatchObject({ ok: true, verify_result: false });
    expect(verifyPython({ ...req, source: good.replace("return self.n", "with x: pass\n        return self.n") })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/with statement/),
    });
  });
});

describe("Python subset: hostile sources", () => {
  it("refuses absurdly nested expressions instead of crashing", () => {
    const deep = `${"(".repeat(20000)}1${")".repeat(20000)}`;
    const c = compileTemplate(`class Answer(BaseAnswer):\n    def verify(self):\n        return ${deep}\n`);
    expect(c.ok).toBe(false);
  });
});

describe("Python subset: the re module", () => {
  const withRe = (expr: string) => {
    const t = template(`    def verify(self):\n        import re\n        return ${expr}\n`);
    const { interp, self } = instantiate(t, {});
    return toJson(interp.callFunction(t.methods.get("verify")!, [self]));
  };
  it.each([
    ["re.search(r'\\d+', 'ab 42 c').group()", "42"],
    ["re.search(r'(?P<y>\\d{4})-(\\d\\d)', 'on 2024-05').group('y')", "2024"],
    ["re.search(r'(\\d{4})-(\\d\\d)', 'on 2024-05').groups()", ["2024", "05"]],
    ["re.search('x', 'abc') is None", true],
    ["re.match('b', 'abc') is None and re.match('a', 'abc') is not None", true],
    ["re.fullmatch(r'a|ab', 'ab') is not None", true],
    [
      "re.findall(r'(\\w)=(\\d)', 'a=1 b=2')",
      [
        ["a", "1"],
        ["b", "2"],
      ],
    ],
    ["re.findall(r'bcl-?2', 'BCL2 and Bcl-2', re.IGNORECASE)", ["BCL2", "Bcl-2"]],
    ["re.sub(r'(\\w+)@(\\w+)', r'\\2 at \\1', 'me@host, $1')", "host at me, $1"],
    ["re.split(r'[,;]\\s*', 'a, b;c')", ["a", "b", "c"]],
    ["re.compile(r'^\\s*yes', re.I).search('  YES sir') is not None", true],
    ["bool(re.search(r'\\bcat\\b', 'concatenate'))", false],
  ])("evaluates %s", (expr, want) => {
    expect(withRe(expr)).toEqual(want);
  });

  it("refuses a pattern Python's re would accept but edgeval cannot honour, as a re.error", () => {
    const t = template("    def verify(self):\n        import re\n        return re.search(r'(?>a)', 'a') is not None\n");
    expect(runVerify(t, {})).toEqual({ ok: false, error: expect.stringMatching(/^re\.error: .*atomic/) });
  });

  it("needs the import, as Python does", () => {
    const t = template("    def verify(self):\n        return re.search('a', 'a') is not None\n");
    expect(runVerify(t, {})).toEqual({ ok: false, error: expect.stringMatching(/NameError: name 're' is not defined/) });
  });
});

describe("Python subset: functions", () => {
  it("calls helper methods and module functions with keyword arguments and default values", () => {
    const src = `TOLERANCE = 0.5

def close(a, b, tol=TOLERANCE):
    return abs(a - b) <= tol

class Answer(BaseAnswer):
    x: float = Field(description="x")

    def scaled(self, factor=2, offset=0):
        return self.x * factor + offset

    def verify(self):
        return close(self.scaled(offset=1), 7) and close(self.x, 3.4, tol=0.5) and self.scaled(3) == 9
`;
    const c = compileTemplate(src);
    if (!c.ok) throw new Error(c.error);
    expect(runVerify(c.template, { x: 3 })).toMatchObject({ ok: true, verify_result: true });
    expect(runVerify(c.template, { x: 4 })).toMatchObject({ ok: true, verify_result: false });
  });

  it("reports a wrong call as a TypeError", () => {
    const t = template("    def verify(self):\n        return self.helper(nope=1)\n    def helper(self, a):\n        return a\n");
    expect(runVerify(t, {})).toEqual({ ok: false, error: expect.stringMatching(/TypeError: got an unexpected keyword argument 'nope'/) });
    const m = template("    def verify(self):\n        return self.helper()\n    def helper(self, a):\n        return a\n");
    expect(runVerify(m, {})).toEqual({ ok: false, error: expect.stringMatching(/TypeError: missing required argument 'a'/) });
  });

  it("refuses a function defined inside a method at compile time", () => {
    const c = compileTemplate(
      "class Answer(BaseAnswer):\n    def verify(self):\n        if True:\n            def inner():\n                return 1\n        return inner()\n",
    );
    expect(c.ok).toBe(false);
    if (!c.ok) expect(c.error).toBe("line 4: nested function definition is outside the supported Python subset");
  });
});

describe("Python subset: while, try/except, raise, assert", () => {
  const body = (lines: string[]) => template(`    def verify(self):\n${lines.map((l) => `        ${l}\n`).join("")}`);
  const value = (lines: string[], parsed: Record<string, unknown> = {}) => {
    const t = body(lines);
    const { interp, self } = instantiate(t, parsed);
    return toJson(interp.callFunction(t.methods.get("verify")!, [self]));
  };

  it("runs while loops with break and continue", () => {
    expect(
      value([
        "n, out = 0, []",
        "while True:",
        "    n += 1",
        "    if n % 2:",
        "        continue",
        "    out.append(n)",
        "    if n >= 6:",
        "        break",
        "return out",
      ]),
    ).toEqual([2, 4, 6]);
  });

  it("catches by class and base class, binds the exception, runs else and finally", () => {
    expect(
      value(["try:", "    v = float(self.x)", "except ValueError as e:", "    return 'bad: ' + str(e)", "return v"], { x: "abc" }),
    ).toBe("bad: could not convert string to float: 'abc'");
    expect(
      value(
        [
          "try:",
          "    v = float(self.x)",
          "except (TypeError, ValueError):",
          "    return -1",
          "else:",
          "    v += 1",
          "finally:",
          "    self.done = True",
          "return [v, self.done]",
        ],
        { x: "2.5" },
      ),
    ).toEqual([3.5, true]);
    expect(value(["try:", "    return {}['k']", "except LookupError:", "    return 'lookup'"])).toBe("lookup");
    expect(
      value(
        ["try:", "    return 1 / 0", "except KeyError:", "    return 'no'", "except Exception as e:", "    return type_name(e)"].map((l) =>
          l.replace("type_name(e)", "'caught'"),
        ),
      ),
    ).toBe("caught");
  });

  it("raises and re-raises: an uncaught raise is a verify error naming the class and message", () => {
    expect(runVerify(body(["raise ValueError('gene symbol missing')"]), {})).toEqual({
      ok: false,
      error: "ValueError: gene symbol missing (line 9)",
    });
    expect(runVerify(body(["try:", "    raise KeyError('k')", "except KeyError:", "    raise"]), {})).toEqual({
      ok: false,
      error: "KeyError: k (line 10)",
    });
    expect(runVerify(body(["assert self.x, 'x is required'", "return True"]), {})).toEqual({
      ok: false,
      error: "AssertionError: x is required (line 9)",
    });
  });

  it("never lets an except swallow the step budget: a runaway loop inside try still ends the run", () => {
    const t = body(["try:", "    while True:", "        pass", "except:", "    return True", "return True"]);
    expect(runVerify(t, {}, 5_000)).toEqual({ ok: false, error: expect.stringMatching(/^StepLimitExceeded/) });
  });
});

describe("Python subset: mutating dicts and lists", () => {
  it("supports dict pop/setdefault/update and list clear", () => {
    const t = template(
      "    def verify(self):\n        d = {'a': 1}\n        d.update({'b': 2}, c=3)\n        d.setdefault('a', 9)\n        d.setdefault('z', [])\n        d['z'].append(d.pop('b'))\n        l = [1]\n        l.clear()\n        return [d, l, d.pop('nope', 'dflt')]\n",
    );
    const { interp, self } = instantiate(t, {});
    expect(toJson(interp.callFunction(t.methods.get("verify")!, [self]))).toEqual([{ a: 1, c: 3, z: [2] }, [], "dflt"]);
  });
});

describe("Python subset: format specs in f-strings and str.format", () => {
  it.each([
    ["f'{3.14159:.2f}'", "3.14"],
    ["f'{0.125:.2f}'", "0.12"],
    ["f'{2.675:.2f}'", "2.67"],
    ["f'{42:5d}'", "   42"],
    ["f'{42:<5d}|'", "42   |"],
    ["f'{42:^6}|'", "  42  |"],
    ["f'{-42:06d}'", "-00042"],
    ["f'{1234567.891:,.1f}'", "1,234,567.9"],
    ["f'{0.256:.1%}'", "25.6%"],
    ["f'{12345.678:e}'", "1.234568e+04"],
    ["f'{12345.678:.2E}'", "1.23E+04"],
    ["f'{\"ab\":>4}'", "  ab"],
    ["f'{\"abcdef\":.3}'", "abc"],
    ["f'{\"x\":*^5}'", "**x**"],
    ["f'{7:+d}'", "+7"],
    ["f'{7: d}'", " 7"],
    ["f'{3.0:.0f}'", "3"],
    ["f'{-0.0:.1f}'", "-0.0"],
    ["f'{1e22:.1f}'", "10000000000000000000000.0"],
    ["f'{5!r:>4}'", "   5"],
    ["f'{\"q\"!r:>5}'", "  'q'"],
    ["'{:.3f} {name:>3}'.format(1/3, name='x')", "0.333   x"],
    ["f'{1_000_000:_d}'", "1_000_000"],
    ["f'{True:d}'", "1"],
  ])("formats %s as CPython does", (expr, want) => {
    expect(py(expr)).toBe(want);
  });

  it("refuses a format type outside the subset as a ValueError", () => {
    const t = template("    def verify(self):\n        return f'{255:x}'\n");
    expect(runVerify(t, {})).toEqual({ ok: false, error: expect.stringMatching(/^ValueError: format spec "x" is outside the subset/) });
  });
});

describe("Python subset: memory is bounded across a run", () => {
  it("stops a template that keeps building large values, with MemoryError that except cannot catch", () => {
    const t = template(
      "    def verify(self):\n        keep = []\n        try:\n            for i in range(1000):\n                keep.append('x' * 100000 + str(i))\n        except:\n            return True\n        return len(keep) > 0\n",
    );
    expect(runVerify(t, {})).toEqual({ ok: false, error: expect.stringMatching(/^MemoryError: the template built more than/) });
  });

  it("leaves ordinary templates far below the allowance", () => {
    const t = template(
      "    def verify(self):\n        words = [w.lower() for w in ('lorem ipsum ' * 2000).split()]\n        return len(set(words)) == 2\n",
    );
    expect(runVerify(t, {})).toMatchObject({ ok: true, verify_result: true });
  });
});

describe("Python subset: the math module", () => {
  it("computes what numeric verify() code uses, after import math", () => {
    const t = template(
      "    def verify(self):\n        import math\n        return [math.isclose(0.1 + 0.2, 0.3), math.isclose(100, 101, rel_tol=0.02), math.isclose(1, 1.5, abs_tol=0.1), math.sqrt(16), math.floor(-2.5), math.ceil(2.1), round(math.log(8, 2)), math.isnan(math.nan), math.pi > 3.14]\n",
    );
    const { interp, self } = instantiate(t, {});
    expect(toJson(interp.callFunction(t.methods.get("verify")!, [self]))).toEqual([true, true, false, 4, -3, 3, 3, true, true]);
  });

  it("raises ValueError for a math domain error", () => {
    expect(runVerify(template("    def verify(self):\n        import math\n        return math.sqrt(-1)\n"), {})).toEqual({
      ok: false,
      error: expect.stringMatching(/^ValueError: math domain error/),
    });
  });
});
