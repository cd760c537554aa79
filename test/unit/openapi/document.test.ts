/**
 * Issue 24: /openapi.json is a valid OpenAPI 3.1 document (checked by a real validator,
 * @apidevtools/swagger-parser), its examples fit their schemas, and its error catalogue covers
 * every code the API can answer.
 */
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../src/schemas/api-error";
import { openApiDocument } from "../../../src/openapi/document";
import { OPERATIONS } from "../../../src/openapi/operations";
import { documentValidator } from "../../support/openapi-validator";

type Json = Record<string, any>;
const doc = openApiDocument() as Json;

describe("/openapi.json", () => {
  it("passes swagger-parser's OpenAPI 3.1 validation", async () => {
    // validate() dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    expect(doc.openapi).toBe("3.1.0");
  });

  it("is refused by the same validator when it is broken (the check can fail)", async () => {
    const broken = structuredClone(doc);
    broken.paths["/v1/runs"].get.responses["200"].content["application/json"].schema = { $ref: "#/components/schemas/NoSuchSchema" };
    await expect(SwaggerParser.validate(broken as never)).rejects.toThrow(/NoSuchSchema/);
  });

  it("has every example fit the schema it illustrates", () => {
    const check = documentValidator(doc);
    let examples = 0;
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(item)) {
        const media = [op.requestBody?.content, ...Object.values<Json>(op.responses).map((r) => r.content)].flatMap((c) =>
          Object.values<Json>(c ?? {}),
        );
        for (const m of media) {
          const values = [m.example, ...Object.values<Json>(m.examples ?? {}).map((e) => e.value)].filter((v) => v !== undefined);
          for (const v of values) {
            examples++;
            expect(check(m.schema.$ref, v), `${method} ${path}`).toEqual([]);
          }
        }
      }
    }
    expect(examples).toBeGreaterThan(40);
  }, 30_000); // compiles a validator per schema: 0.7 s alone, 6 s once beside an e2e build (vitest's 5 s default failed then)

  it("has every request example accepted by the zod schema the route validates with", () => {
    const withExample = OPERATIONS.filter((op) => op.body?.example !== undefined);
    expect(withExample.length).toBeGreaterThan(5);
    for (const op of withExample) expect(op.body!.schema.safeParse(op.body!.example).error, op.path).toBeUndefined();
  });

  it("documents POST /v1/runs naming a preset (preset_id, config as overrides) beside a config spelled out", () => {
    const check = documentValidator(doc);
    const body = doc.paths["/v1/runs"].post.requestBody.content["application/json"].schema.$ref;
    const benchmark = { name: "b", questions: [{ id: "q1", question: "2+2?", raw_answer: "4" }] };
    expect(check(body, { benchmark_id: "bm_1", preset_id: "pre_1" })).toEqual([]);
    expect(check(body, { benchmark, preset_id: "pre_1", config: { answering_models: [] }, run_name: "r" })).toEqual([]);
    expect(check(body, { benchmark_id: "bm_1", preset_id: "" })).not.toEqual([]);
    // Without a preset the config is required and must be a VerificationConfig.
    expect(check(body, { benchmark_id: "bm_1" })).not.toEqual([]);
    expect(check(body, { benchmark_id: "bm_1", config: {} })).not.toEqual([]);
    expect(
      check("#/components/schemas/CreateTriggerRequest", {
        name: "t",
        benchmark_id: "bm_1",
        preset_id: "pre_1",
        signing: { scheme: "github" },
      }),
    ).toEqual([]);
  });

  it("documents every error code with its status, when it happens and what to do", () => {
    const catalogue = doc["x-error-catalogue"] as { code: string; status: number; when: string; fix: string }[];
    expect(catalogue.map((e) => e.code).sort()).toEqual([...ErrorCode.options].sort());
    for (const e of catalogue) {
      expect(e.status).toBeGreaterThanOrEqual(400);
      expect(e.when.length).toBeGreaterThan(10);
      expect(e.fix.length).toBeGreaterThan(5);
    }
    expect(doc.info.description).toContain("| `idempotency_conflict` | 409 |");
  });

  it("gives every operation an id, a summary, its scope and an error response per code it may answer", () => {
    const ids = new Set<string>();
    for (const op of OPERATIONS) {
      const o = doc.paths[op.path.replace(/:([A-Za-z_]+)/g, "{$1}")][op.method];
      expect(ids.has(o.operationId), o.operationId).toBe(false);
      ids.add(o.operationId);
      expect(o.summary.length).toBeGreaterThan(5);
      for (const code of o["x-error-codes"]) {
        const status = doc["x-error-catalogue"].find((e: Json) => e.code === code).status;
        expect(o.responses[String(status)].content["application/json"].examples[code], `${op.path} ${code}`).toBeDefined();
      }
    }
  });
});
