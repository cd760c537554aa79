/**
 * Issue 16 (bounded input): what a write route accepts reads back byte-identical. fast-check
 * builds valid benchmarks whose free-form parts (names, question texts, raw answers, keywords,
 * custom_metadata of any JSON, any unicode) vary; each is stored with POST /v1/benchmarks (201) and
 * read with GET /v1/benchmarks/:id, and the JSON of every part sent is the JSON of the part read.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { api } from "./helpers";

const text = fc.string({ unit: "binary", minLength: 1, maxLength: 40 });
const question = fc.record({
  question: text,
  raw_answer: fc.string({ unit: "binary", maxLength: 40 }),
  keywords: fc.array(fc.string({ unit: "binary", maxLength: 12 }), { maxLength: 4 }),
  custom_metadata: fc.dictionary(fc.string({ unit: "binary", maxLength: 12 }), fc.jsonValue({ maxDepth: 8 }), { maxKeys: 5 }),
});
// A key named __proto__ is refused by every route (fuzz-write-routes.test.ts): not a body that reads back.
const benchmark = fc
  .record({ name: text, questions: fc.array(question, { minLength: 1, maxLength: 3 }) })
  .filter((b) => !JSON.stringify(b).includes('"__proto__":'))
  .map((b) => ({
    ...b,
    questions: b.questions.map((q, i) => ({ id: `q${i}`, ...q })),
  }));

describe("stored bodies read back byte-identical", () => {
  it("POST /v1/benchmarks → GET /v1/benchmarks/:id keeps every free-form part as sent", async () => {
    await fc.assert(
      fc.asyncProperty(benchmark, async (b) => {
        const res = await api("/v1/benchmarks", { method: "POST", json: b });
        const created = (await res.json()) as { benchmark_id?: string; url?: string; error?: unknown };
        if (res.status !== 201)
          throw new Error(`${res.status} for ${JSON.stringify(b).slice(0, 300)}: ${JSON.stringify(created).slice(0, 300)}`);
        const read = (await (await api(`/v1/benchmarks/${created.benchmark_id}`)).json()) as { benchmark: typeof b };
        expect(JSON.stringify(read.benchmark.name)).toBe(JSON.stringify(b.name));
        b.questions.forEach((q, i) => {
          const got = read.benchmark.questions[i]!;
          for (const k of ["id", "question", "raw_answer", "keywords", "custom_metadata"] as const) {
            expect(JSON.stringify(got[k]), `${k} of question ${i}`).toBe(JSON.stringify(q[k]));
          }
        });
      }),
      { numRuns: 300 },
    );
  }, 240_000);

  it("any nesting is either refused at submit or read back as sent (7,000 deep used to be stored and then answer 500 for ever)", async () => {
    const nested = (d: number) => JSON.parse(`${"[".repeat(d)}"leaf"${"]".repeat(d)}`) as unknown;
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.integer({ min: 1, max: 62 }), fc.integer({ min: 63, max: 8_000 })), async (depth) => {
        const b = { name: "deep", questions: [{ id: "q1", question: "Q?", custom_metadata: { x: nested(depth) } }] };
        const res = await api("/v1/benchmarks", { method: "POST", json: b });
        const created = (await res.json()) as { benchmark_id?: string };
        if (res.status >= 400 && res.status < 500) return;
        expect(res.status, `depth ${depth}`).toBe(201);
        const read = await api(`/v1/benchmarks/${created.benchmark_id}`);
        expect(read.status, `depth ${depth}`).toBe(200);
        const got = (await read.json()) as { benchmark: typeof b };
        expect(JSON.stringify(got.benchmark.questions[0]!.custom_metadata)).toBe(JSON.stringify(b.questions[0]!.custom_metadata));
      }),
      { numRuns: 60 },
    );
  }, 240_000);
});
