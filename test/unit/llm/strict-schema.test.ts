import { describe, expect, it } from "vitest";
import { dropAddedNulls, toStrictSchema } from "../../../src/llm/strict-schema";

describe("OpenAI strict json_schema form", () => {
  it("requires every property, makes optional ones nullable, forbids extra properties, drops defaults", () => {
    const strict = toStrictSchema({
      type: "object",
      additionalProperties: true,
      required: ["a"],
      properties: {
        a: { type: "string" },
        b: { type: "integer", default: 3 },
        c: { enum: ["x", "y"] },
        d: { anyOf: [{ type: "number" }, { type: "null" }], default: null },
        e: { type: "array", items: { type: "object", properties: { f: { type: "boolean" } } } },
      },
    });
    expect(strict).toEqual({
      type: "object",
      additionalProperties: false,
      required: ["a", "b", "c", "d", "e"],
      properties: {
        a: { type: "string" },
        b: { type: ["integer", "null"] },
        c: { anyOf: [{ enum: ["x", "y"] }, { type: "null" }] },
        d: { anyOf: [{ type: "number" }, { type: "null" }] },
        e: {
          type: ["array", "null"],
          items: { type: "object", properties: { f: { type: ["boolean", "null"] } }, required: ["f"], additionalProperties: false },
        },
      },
    });
  });

  it("gives up (null: send unstrict) on free-form objects and $ref", () => {
    expect(toStrictSchema({ type: "object", additionalProperties: { type: "string" } })).toBeNull();
    expect(toStrictSchema({ type: "object", properties: { a: { $ref: "#/$defs/A" } } })).toBeNull();
  });

  it("removes the nulls strict mode made the model write for optional properties, keeps real nulls", () => {
    const original = {
      type: "object",
      required: ["a"],
      properties: {
        a: { type: ["string", "null"] },
        b: { type: "integer" },
        d: { anyOf: [{ type: "number" }, { type: "null" }] },
        e: { type: "array", items: { type: "object", properties: { f: { type: "boolean" } } } },
      },
    };
    expect(dropAddedNulls({ a: null, b: null, d: null, e: [{ f: null }, { f: true }] }, original)).toEqual({
      a: null,
      d: null,
      e: [{}, { f: true }],
    });
  });
});
