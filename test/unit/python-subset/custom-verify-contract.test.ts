// Issue 15 item 8: the Python custom_verify contract as src/templates/python-subset/README.md
// shows it runs, and the JavaScript contract written in Python is named for what it is.
import { describe, expect, it } from "vitest";
import { pythonContractProblem, verifyPython } from "../../../src/templates/python-subset";
import { CustomVerify } from "../../../src/templates/template-schema";

const README_EXAMPLE = `class Answer(BaseAnswer):
    gene: str = Field(description="The gene named in the response")

    def model_post_init(self, __context):
        self.correct = {"gene": "TP53"}

    def verify(self) -> bool:
        return self.gene.strip().upper() == self.correct["gene"]
`;

const req = (source: string, parsed: Record<string, unknown>) => ({
  language: "python" as const,
  source,
  parsed,
  ground_truth: {},
  raw_trace: "",
});

describe("Python custom_verify contract", () => {
  it("runs the README's example: the judge's fields as self.<name>, the class's own self.correct", () => {
    expect(pythonContractProblem(README_EXAMPLE)).toBeNull();
    expect(verifyPython(req(README_EXAMPLE, { gene: " tp53 " }))).toMatchObject({ ok: true, verify_result: true });
    expect(verifyPython(req(README_EXAMPLE, { gene: "BRCA1" }))).toMatchObject({ ok: true, verify_result: false });
  });

  it("names the JavaScript contract written in Python, and a module with no class", () => {
    expect(pythonContractProblem("def verify(answer, ground_truth, context):\n    return True\n")).toMatch(
      /^a module-level def verify\(\.\.\.\) \(line 1\) is the JavaScript contract/,
    );
    expect(pythonContractProblem("x = 1\n")).toMatch(/^no answer class/);
  });

  it("leaves sources that do not parse or use constructs outside the subset to the compile step", () => {
    expect(pythonContractProblem("def verify(:\n")).toBeNull();
    expect(
      pythonContractProblem("class Answer(BaseAnswer):\n    def verify(self):\n        with open('x') as f:\n            return True\n"),
    ).toBeNull();
  });
});

describe("a Python custom_verify is compiled when the template is submitted (issue 16)", () => {
  const refused = (source: string) => {
    const r = CustomVerify.safeParse({ language: "python", source });
    return r.success ? null : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
  };
  it("refuses a syntax error, naming the line", () => {
    expect(refused("class Answer(BaseAnswer):\n    def verify(self):\n        return 1 +* 2\n")).toMatch(/^source: line 3: syntax error/);
  });
  it("refuses a construct outside the subset, naming the line", () => {
    expect(refused("class Answer(BaseAnswer):\n    def verify(self):\n        with open('x') as f:\n            return True\n")).toMatch(
      /^source: line 3: with statement/,
    );
  });
  it("refuses an answer class without verify, and a def verify without a class", () => {
    expect(refused("class Answer(BaseAnswer):\n    x: int = 1\n")).toMatch(/^source: class Answer \(line 1\) defines no verify\(self\)/);
    expect(refused("def verify(answer, ground_truth, context):\n    return True\n")).toMatch(/^source: a module-level def verify/);
  });
  it("accepts the README's example", () => expect(refused(README_EXAMPLE)).toBeNull());
});
