import { describe, expect, it } from "vitest";
import { extractJson, lastJsonObject } from "../../../src/lib/json-extract";

const value = (text: string) => {
  const r = extractJson(text);
  return r.ok ? r.value : { failed: r.error };
};

describe("extractJson", () => {
  it("parses bare JSON objects and arrays", () => {
    expect(value('{"a": 1}')).toEqual({ a: 1 });
    expect(value("  [1, 2]\n")).toEqual([1, 2]);
  });

  it("takes the content of a ```json fence, with or without an info string", () => {
    expect(value('```json\n{"correct": true}\n```')).toEqual({ correct: true });
    expect(value('Result:\n```\n{"x": "y"}\n```\nDone.')).toEqual({ x: "y" });
    expect(value('```JSON {"inline": 1} ```')).toEqual({ inline: 1 });
  });

  it("finds an object inside chatty prose", () => {
    expect(value('Here you go: {"answer": "Paris", "n": [1, {"k": 2}]} hope that helps!')).toEqual({
      answer: "Paris",
      n: [1, { k: 2 }],
    });
  });

  it("is not fooled by braces inside strings or by earlier non-JSON braces", () => {
    expect(value('Use {curly} braces like this: {"s": "a } tricky \\" { string"}')).toEqual({ s: 'a } tricky " { string' });
  });

  it("prefers an object over a citation-like array in prose", () => {
    expect(value('As shown in [1], the result is {"ok": true}')).toEqual({ ok: true });
  });

  it("skips a fence that does not parse and uses the next one", () => {
    expect(value('```json\n{oops\n```\nbetter:\n```json\n{"fixed": true}\n```')).toEqual({ fixed: true });
  });

  it("returns an error (never throws) for text without JSON", () => {
    expect(value("Sure! Here is what I found: {oops")).toMatchObject({ failed: expect.any(String) });
    expect(value("")).toMatchObject({ failed: "empty text" });
    expect(value('"just a string"')).toMatchObject({ failed: expect.any(String) });
    expect(value("42")).toMatchObject({ failed: expect.any(String) });
    expect(extractJson(undefined as unknown as string).ok).toBe(false);
  });

  it("keeps the JSON text it used", () => {
    const r = extractJson('pre {"a":1} post');
    expect(r.ok && r.json).toBe('{"a":1}');
  });

  it("gives up quickly on pathological input", () => {
    const t0 = performance.now();
    expect(extractJson("{".repeat(20_000)).ok).toBe(false);
    expect(performance.now() - t0).toBeLessThan(2_000);
  });
});

describe("lastJsonObject", () => {
  const withAnswer = (v: unknown) => (v !== null && typeof v === "object" && "answer" in v ? v : null);
  it("takes the last object the caller accepts, passing over inner objects it refuses", () => {
    const report = 'First guess {"answer": "Lyon"}. Checked the file: {"answer": "Paris", "source": {"file": "notes.txt"}} done.';
    expect(lastJsonObject(report, withAnswer)).toEqual({ answer: "Paris", source: { file: "notes.txt" } });
  });
  it("skips braces inside strings and text that is not JSON", () => {
    expect(lastJsonObject('{"answer": "a } b"} then {not json}', withAnswer)).toEqual({ answer: "a } b" });
  });
  it("is null when nothing is accepted", () => {
    expect(lastJsonObject('{"other": 1} and no answer', withAnswer)).toBeNull();
    expect(lastJsonObject("no braces at all", withAnswer)).toBeNull();
  });
});
