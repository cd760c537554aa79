import { describe, expect, it } from "vitest";
import { AnswerTemplate } from "../../../src/templates/template-schema";
import { buildJudgeSchema, judgeVisibleFields } from "../../../src/templates";
import { parseOk } from "../schemas/issues";

const t = parseOk(AnswerTemplate, {
  fields: [
    {
      name: "gene_symbol",
      type: "str",
      description: "The official gene symbol",
      ground_truth: "SECRET-BCL2-VALUE",
      verify_with: { type: "ExactMatch" },
    },
    {
      name: "copies",
      type: "int",
      description: "Copy number",
      ground_truth: 424242,
      verify_with: { type: "NumericTolerance", params: { tolerance: 0 } },
    },
    {
      name: "dose",
      type: "float",
      description: "Dose in mg",
      ground_truth: 1.5,
      verify_with: { type: "NumericTolerance", params: { tolerance: 0.1 } },
    },
    { name: "is_oncogene", type: "bool", description: "True if an oncogene", ground_truth: true, verify_with: { type: "BooleanMatch" } },
    {
      name: "indications",
      type: "list_str",
      description: "Approved indications",
      ground_truth: ["HIDDEN-CLL"],
      verify_with: { type: "SetContainment", params: { mode: "superset" } },
    },
    {
      name: "phase",
      type: "literal",
      literal_values: ["I", "II", "III"],
      description: "Trial phase",
      ground_truth: "III",
      verify_with: { type: "ExactMatch" },
    },
    { name: "approval_date", type: "date", description: "Approval date", ground_truth: "2016-04-11", verify_with: { type: "ExactMatch" } },
  ],
});

describe("the JSON schema the judge sees", () => {
  const { jsonSchema } = buildJudgeSchema(t);
  it("never contains a ground truth, primitive or weight", () => {
    const text = JSON.stringify(jsonSchema);
    for (const secret of ["SECRET-BCL2-VALUE", "424242", "HIDDEN-CLL", "2016-04-11", "NumericTolerance", "weight", "ground_truth"]) {
      expect(text).not.toContain(secret);
    }
  });
  it("is titled Answer, allows extra properties and requires nothing", () => {
    expect(jsonSchema).toMatchObject({ title: "Answer", type: "object", additionalProperties: true });
    expect(jsonSchema).not.toHaveProperty("required");
  });
  it("makes every field optional and nullable, with its description and a Pydantic-style title", () => {
    expect((jsonSchema.properties as Record<string, unknown>).gene_symbol).toEqual({
      anyOf: [{ type: "string" }, { type: "null" }],
      default: null,
      description: "The official gene symbol",
      title: "Gene Symbol",
    });
  });
  it("maps field types to JSON types (literal → enum, list_str → string array, date → string)", () => {
    const types = Object.fromEntries(
      Object.entries(jsonSchema.properties as Record<string, { anyOf: unknown[] }>).map(([k, v]) => [k, v.anyOf[0]]),
    );
    expect(types).toEqual({
      gene_symbol: { type: "string" },
      copies: { type: "integer" },
      dose: { type: "number" },
      is_oncogene: { type: "boolean" },
      indications: { type: "array", items: { type: "string" } },
      phase: { enum: ["I", "II", "III"], type: "string" },
      approval_date: { type: "string", format: "date" },
    });
  });
});

describe("the zod schema the judge's reply must satisfy", () => {
  const { schema } = buildJudgeSchema(t);
  it("drops extra keys like Karenina's id and fills missing fields with null", () => {
    expect(schema.parse({ id: null, gene_symbol: "BCL2", note: "x" })).toEqual({
      gene_symbol: "BCL2",
      copies: null,
      dose: null,
      is_oncogene: null,
      indications: null,
      phase: null,
      approval_date: null,
    });
  });
  it("applies Pydantic's lax coercions for numbers and booleans", () => {
    expect(schema.parse({ copies: "3", dose: "1.25", is_oncogene: "true" })).toMatchObject({ copies: 3, dose: 1.25, is_oncogene: true });
  });
  it("rejects values of the wrong type or outside the literal", () => {
    expect(schema.safeParse({ phase: "IV" }).success).toBe(false);
    expect(schema.safeParse({ copies: 2.5 }).success).toBe(false);
    expect(schema.safeParse({ indications: "CLL" }).success).toBe(false);
  });
});

it("a regex-only template has no judge-visible field", () => {
  const regexOnly = parseOk(AnswerTemplate, { regex: [{ name: "n", pattern: "x", expected: "x" }] });
  expect(judgeVisibleFields(regexOnly)).toEqual([]);
  expect(judgeVisibleFields(t).map((f) => f.name)).toHaveLength(7);
});

describe("judge schema reuse", () => {
  const make = (type: "int" | "str") =>
    parseOk(AnswerTemplate, {
      fields: [{ name: "x", type, description: "x", ground_truth: type === "int" ? 1 : "a", verify_with: { type: "ExactMatch" } }],
    });
  it("is built once per template object and never leaks between templates with the same field names", () => {
    const asInt = make("int");
    const asStr = make("str");
    expect(buildJudgeSchema(asInt)).toBe(buildJudgeSchema(asInt));
    expect(buildJudgeSchema(asInt).schema.safeParse({ x: "3" }).data).toEqual({ x: 3 });
    expect(buildJudgeSchema(asStr).schema.safeParse({ x: "3" }).data).toEqual({ x: "3" });
    expect(buildJudgeSchema(asStr).schema.safeParse({ x: 3 }).success).toBe(false);
  });

  it("is shared by templates that differ only in what the judge never sees, and only by those", () => {
    const field = { name: "gene", type: "str", description: "The gene symbol", verify_with: { type: "ExactMatch" } };
    const a = parseOk(AnswerTemplate, { fields: [{ ...field, ground_truth: "BCL2" }] });
    const b = parseOk(AnswerTemplate, { fields: [{ ...field, ground_truth: "TP53", weight: 2 }] });
    expect(buildJudgeSchema(a)).toBe(buildJudgeSchema(b));
    for (const other of [
      { ...field, description: "The gene's symbol" },
      { ...field, name: "symbol" },
      { ...field, type: "literal", literal_values: ["BCL2", "TP53"] },
    ]) {
      expect(buildJudgeSchema(parseOk(AnswerTemplate, { fields: [{ ...other, ground_truth: "BCL2" }] }))).not.toBe(buildJudgeSchema(a));
    }
    const titled = parseOk(AnswerTemplate, { class_name: "GeneAnswer", fields: [{ ...field, ground_truth: "BCL2" }] });
    expect(buildJudgeSchema(titled).jsonSchema.title).toBe("GeneAnswer");
    expect(buildJudgeSchema(a).jsonSchema.title).toBe("Answer");
  });
});
