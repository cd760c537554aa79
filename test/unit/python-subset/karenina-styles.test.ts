import { describe, expect, it } from "vitest";
import { importTemplate } from "../../../src/karenina/template-import";
import { compileTemplate, runVerify, staticState } from "../../../src/templates/python-subset";

/** Classic templates written the ways Karenina's docs and tests write them. */
const CORRECT_DICT = `"""Ground truth in a dict set by model_post_init."""

from typing import Any

from pydantic import Field

from karenina.schemas.entities import BaseAnswer


class Answer(BaseAnswer):
    """Gene facts."""

    gene_name: str = Field(description="The gene symbol/name")
    chromosome: str = Field(description="Chromosome location")
    function: str = Field(description="Gene function description")
    synonyms: list[str] | None = Field(default=None, description="Alternative gene symbols")
    omim_id: int | None = Field(default=None, description="OMIM database ID")

    def model_post_init(self, __context):
        """Set ground truth."""
        self.correct: dict[str, Any] = {
            "gene_name": "BCL2",
            "chromosome": "18q21.33",
            "function": "Apoptosis regulator",
            "synonyms": ["Bcl-2", "BCL2"],
            "omim_id": 151430,
        }

    def verify(self) -> bool:
        """Compare each field."""
        if self.gene_name.upper() != self.correct["gene_name"].upper():
            return False
        if self.chromosome != self.correct["chromosome"]:
            return False
        # Fuzzy match for function
        if self.correct["function"].lower() not in self.function.lower():
            return False
        if self.synonyms is not None:
            synonym_set = {s.upper() for s in self.synonyms}
            correct_set = {s.upper() for s in self.correct["synonyms"]}
            if not synonym_set.issubset(correct_set):
                return False
        if self.omim_id is not None and self.omim_id != self.correct["omim_id"]:  # noqa: SIM103
            return False
        return True

    def verify_granular(self) -> float:
        checks = [
            self.gene_name.upper() == self.correct["gene_name"],
            self.chromosome == self.correct["chromosome"],
            self.correct["function"].lower() in self.function.lower(),
        ]
        return sum(1 for c in checks if c) / len(checks)
`;

const GROUND_TRUTH_STYLE = `from pydantic import Field
from karenina.schemas.entities import BaseAnswer


class Answer(BaseAnswer):
    target: str = Field(description="The identified drug target")

    def ground_truth(self):
        self.correct = {"target": "BCL2"}

    def verify(self) -> bool:
        return self.target.strip().upper() == self.correct["target"].upper()
`;

const NESTED_MODEL = `from pydantic import Field
from karenina.schemas.entities import BaseAnswer


class Citation(BaseAnswer):
    identifier: str = Field(description="Citation identifier like [1]")


class Answer(BaseAnswer):
    main_answer: str = Field(description="The primary answer text")
    citation: Citation | None = Field(default=None, description="Primary citation source")

    def verify(self) -> bool:
        return self.citation is not None and self.citation.identifier == "[1]"
`;

function compiled(src: string) {
  const c = compileTemplate(src);
  if (!c.ok) throw new Error(c.error);
  return c.template;
}

describe("classic templates in Karenina's styles", () => {
  it("runs the self.correct dict style: optional fields, set comprehensions, issubset, verify_granular", () => {
    const t = compiled(CORRECT_DICT);
    const right = {
      gene_name: "bcl2",
      chromosome: "18q21.33",
      function: "An apoptosis regulator protein",
      synonyms: ["bcl-2"],
      omim_id: null,
    };
    expect(runVerify(t, right)).toEqual({ ok: true, verify_result: true, verify_granular_result: 1 });
    expect(runVerify(t, { ...right, synonyms: ["TP53"] })).toMatchObject({ ok: true, verify_result: false });
    expect(runVerify(t, { ...right, chromosome: "17p13" })).toEqual({ ok: true, verify_result: false, verify_granular_result: 2 / 3 });
  });

  it("imports it with fields typed from the annotations and ground truths from self.correct", () => {
    const r = importTemplate(CORRECT_DICT);
    if (!r.ok) throw new Error(r.error);
    expect(r.template.fields).toEqual([
      { name: "gene_name", type: "str", description: "The gene symbol/name", ground_truth: "BCL2" },
      { name: "chromosome", type: "str", description: "Chromosome location", ground_truth: "18q21.33" },
      { name: "function", type: "str", description: "Gene function description", ground_truth: "Apoptosis regulator" },
      { name: "synonyms", type: "list_str", description: "Alternative gene symbols", ground_truth: ["Bcl-2", "BCL2"] },
      { name: "omim_id", type: "int", description: "OMIM database ID", ground_truth: 151430 },
    ]);
    expect(r.template.custom_verify).toEqual({ language: "python", source: CORRECT_DICT });
  });

  it("runs the ground_truth() style", () => {
    const t = compiled(GROUND_TRUTH_STYLE);
    expect(runVerify(t, { target: " bcl2 " })).toMatchObject({ verify_result: true });
    expect(runVerify(t, { target: "MCL1" })).toMatchObject({ verify_result: false });
  });

  it("refuses a nested model class, naming it and its line", () => {
    const r = importTemplate(NESTED_MODEL);
    expect(r).toEqual({
      ok: false,
      error: "line 5: class Citation (nested models, or a second answer class) is outside the supported Python subset",
    });
  });

  it("fills self.correct from VerifiedField ground truths when a template also overrides verify()", () => {
    const src = `class Answer(BaseAnswer):
    city: str = VerifiedField(
        description="Capital city",
        verify_with=RegexMatch(pattern="(?i)paris"),
        ground_truth="Paris",
        default="",
    )

    def verify(self) -> bool:
        return self.city.strip().lower() == self.correct["city"].lower()
`;
    const r = importTemplate(src);
    if (!r.ok) throw new Error(r.error);
    expect(r.template).toMatchObject({
      fields: [{ name: "city", type: "str", description: "Capital city", ground_truth: "Paris" }],
      custom_verify: { language: "python" },
    });
    const t = compiled(src);
    expect(runVerify(t, { city: " paris " })).toMatchObject({ ok: true, verify_result: true });
    expect(runVerify(t, { city: "Rome" })).toMatchObject({ ok: true, verify_result: false });
  });
});

describe("reading self.correct at import", () => {
  it("builds the test instance with Karenina's placeholders, so model_post_init may read fields", () => {
    const src = `class Answer(BaseAnswer):
    name: str = Field(description="n")
    count: int = Field(description="c")
    tags: list[str] = Field(description="t")
    phase: Literal["II", "III"] = Field(description="p")

    def model_post_init(self, __context):
        self.correct = {"name": "BCL2", "seen": [self.name.lower(), self.count + 1, len(self.tags), self.phase]}

    def verify(self):
        return self.name == self.correct["name"]
`;
    expect(staticState(compiled(src))).toEqual({ correct: { name: "BCL2", seen: ["", 1, 0, "II"] }, regex: null });
  });
});
