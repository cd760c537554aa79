/**
 * Builds the OpenAPI 3.1 document from the operation list and the zod schemas, with zod 4's own
 * JSON Schema output (draft 2020-12, which OpenAPI 3.1 uses as is). Request and response schemas
 * are written from their input side (`io: "input"`): what a caller sends, and for responses the
 * shape as served (transforms only normalise what edgeval itself wrote). Built once per isolate.
 */
import { z } from "zod";
import pkg from "../../package.json";
import { ERROR_STATUS, ErrorCode, type ErrorCode as Code } from "../schemas/api-error";
import { COMPONENTS } from "./components";
import { ERROR_CATALOGUE } from "./error-catalogue";
import { JUDGE_TOKEN_QUERY, type Operation, type Payload } from "./operation";
import { OPERATIONS } from "./operations";
import { VERSIONING_POLICY } from "./policy";

type Json = Record<string, unknown>;
const REF = (name: string) => `#/components/schemas/${name}`;

/** `z.custom` values (a template's free JSON, e.g. ground_truth) are any JSON value. */
const unrepresentable = () => ({ description: "any JSON value" });

function componentSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(COMPONENTS)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { target: "draft-2020-12", io: "input", unrepresentable, uri: REF });
  const out: Record<string, Json> = {};
  for (const [id, s] of Object.entries(schemas)) {
    const { $schema: _drop, $id: _id, ...rest } = s as Json;
    out[id] = rest;
  }
  if (out.__shared) throw new Error("a recursive schema is not a named component: add it to src/openapi/components.ts");
  return out;
}

const nameOf = new Map<z.ZodType, string>(Object.entries(COMPONENTS).map(([n, s]) => [s, n]));

function schemaRef(schema: z.ZodType, where: string): Json {
  const name = nameOf.get(schema);
  if (!name) throw new Error(`${where} uses a schema that is not named in src/openapi/components.ts`);
  return { $ref: REF(name) };
}

function content(p: Payload, where: string): Json {
  const media: Json = { schema: schemaRef(p.schema, where) };
  if (p.itemSchema) media["x-item-schema"] = schemaRef(p.itemSchema, where);
  if (p.example !== undefined) media.example = p.example;
  const out: Json = { [p.contentType ?? "application/json"]: media };
  for (const alt of p.alternatives ?? []) out[alt.contentType] = { schema: schemaRef(alt.schema, where) };
  return out;
}

/** `/v1/runs/:id` → `/v1/runs/{id}` */
export const openApiPath = (honoPath: string) => honoPath.replace(/:([A-Za-z_]+)/g, "{$1}");

function parameters(op: Operation): Json[] {
  const params: Json[] = [];
  for (const name of op.path.match(/:([A-Za-z_]+)/g)?.map((s) => s.slice(1)) ?? []) {
    params.push({ name, in: "path", required: true, description: op.pathParams?.[name] ?? name, schema: { type: "string" } });
  }
  if (op.query) {
    const q = z.toJSONSchema(op.query, { target: "draft-2020-12", io: "input" }) as {
      properties?: Record<string, Json>;
      required?: string[];
    };
    for (const [name, schema] of Object.entries(q.properties ?? {})) {
      params.push({ name, in: "query", required: q.required?.includes(name) ?? false, schema });
    }
  }
  for (const h of op.headers ?? [])
    params.push({ name: h.name, in: "header", required: false, description: h.description, schema: { type: "string" } });
  return params;
}

/** The error codes an operation may answer: its own, plus those of its auth, body, query and path. */
export function errorCodes(op: Operation): Code[] {
  const codes = new Set<Code>(op.errors ?? []);
  codes.add("unauthorized");
  codes.add("internal");
  if (op.auth.kind === "tenant") ["forbidden", "rate_limited"].forEach((c) => codes.add(c as Code));
  else codes.add("not_configured");
  // A judge token spends its tenant's request bucket.
  if (op.auth.kind === "judgeToken") codes.add("rate_limited");
  // Every credential of a tenant (key, trigger signature, judge token) is refused while it is disabled.
  if (op.auth.kind !== "admin") codes.add("tenant_disabled");
  if (op.body) ["invalid_body", "invalid_json", "body_too_large", "unsupported_media_type"].forEach((c) => codes.add(c as Code));
  // Every /v1 route answers a query parameter it does not take with invalid_query (src/http/undeclared-query.ts).
  if (op.query || op.path.startsWith("/v1/")) codes.add("invalid_query");
  if (op.path.includes(":")) codes.add("not_found");
  // Every route reading a run by id refuses one whose DELETE did not finish (src/http/runs.ts
  // requireRun); the DELETE itself finishes it.
  const readsRun = op.path.startsWith("/v1/runs/:id") || op.path === "/v1/runs/compare";
  if (readsRun && !(op.method === "delete" && op.path === "/v1/runs/:id")) codes.add("run_deleting");
  return ErrorCode.options.filter((c) => codes.has(c));
}

function errorResponses(op: Operation): Record<string, Json> {
  const byStatus = new Map<number, Code[]>();
  for (const code of errorCodes(op)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  const out: Record<string, Json> = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const examples: Json = {};
    for (const code of codes) {
      const entry = ERROR_CATALOGUE.find((e) => e.code === code)!;
      examples[code] = {
        summary: entry.when,
        value: { error: { code, message: entry.fix, request_id: "8d0f6b1c-2c3e-4b7a-9a51-0e4e2f1d3c5b" } },
      };
    }
    out[String(status)] = {
      description: codes.map((c) => `\`${c}\``).join(", "),
      content: { "application/json": { schema: { $ref: REF("ErrorResponse") }, examples } },
    };
  }
  return out;
}

function operationObject(op: Operation): Json {
  const where = `${op.method.toUpperCase()} ${op.path}`;
  const o: Json = { operationId: op.operationId, tags: [op.tag], summary: op.summary };
  if (op.description) o.description = op.description;
  const scheme = { admin: "adminToken", signature: "webhookSignature", judgeToken: "judgeToken" } as const;
  o.security = op.auth.kind === "tenant" ? [{ apiKey: [op.auth.scope] }] : [{ [scheme[op.auth.kind]]: [] }];
  if (op.auth.kind === "tenant") o["x-scope"] = op.auth.scope;
  const params = parameters(op);
  if (params.length) o.parameters = params;
  if (op.body) {
    o.requestBody = { required: !op.body.optional, content: content(op.body, where) };
    o["x-max-body-bytes"] = op.body.maxBytes;
  }
  const responses: Record<string, Json> = {};
  for (const [status, r] of Object.entries(op.responses)) responses[status] = { description: r.description, content: content(r, where) };
  o.responses = { ...responses, ...errorResponses(op) };
  o["x-error-codes"] = errorCodes(op);
  return o;
}

function build(): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of OPERATIONS) {
    const p = (paths[openApiPath(op.path)] ??= {});
    if (p[op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is documented twice`);
    p[op.method] = operationObject(op);
  }
  const schemas = componentSchemas();
  schemas.ErrorCode = {
    type: "string",
    enum: [...ErrorCode.options],
    "x-enum-descriptions": Object.fromEntries(ERROR_CATALOGUE.map((e) => [e.code, `${e.status}: ${e.when} ${e.fix}`])),
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "edgeval",
      version: pkg.version,
      summary: "LLM-answer grading as a service on Cloudflare Workers",
      description: `${VERSIONING_POLICY}\n\n${catalogueMarkdown()}`,
      license: { name: "UNLICENSED", identifier: "UNLICENSED" },
    },
    servers: [{ url: "/", description: "this deployment" }],
    tags: [...new Set(OPERATIONS.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas,
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          description: "A tenant's API key (ev_…), or the deployment's EDGEVAL_API_TOKEN (an all-scope key of tenant default).",
        },
        adminToken: { type: "http", scheme: "bearer", description: "The operator's EDGEVAL_ADMIN_TOKEN; only for /v1/admin." },
        webhookSignature: {
          type: "apiKey",
          in: "header",
          name: "webhook-signature",
          description:
            "Only for POST /v1/hooks/:trigger_id: an HMAC-SHA256 signature made with the trigger's secret, in the header its scheme names — webhook-signature (Standard Webhooks, with webhook-id and webhook-timestamp), X-Hub-Signature-256 (GitHub) or the trigger's own header. OpenAPI has no scheme for a body signature; this one names the Standard Webhooks header.",
        },
        judgeToken: {
          type: "apiKey",
          in: "query",
          name: JUDGE_TOKEN_QUERY,
          description:
            "Only for POST /v1/judges/:id/promptfoo: a token of that judge (jt_…, POST /v1/judges/:id/tokens), in the URL because promptfoo's webhook assertion sends no header but Content-Type. Revocable; it grades with its one judge and nothing else.",
        },
      },
    },
    "x-error-catalogue": ERROR_CATALOGUE,
  };
}

function catalogueMarkdown(): string {
  const rows = ERROR_CATALOGUE.map((e) => `| \`${e.code}\` | ${e.status} | ${e.when} | ${e.fix} |`);
  return [
    "## Errors",
    "",
    'Every error answers `{"error": {"code", "message", "issues"?, "request_id"}}` (schema ErrorResponse).',
    "",
    "| code | status | when | what to do |",
    "|---|---|---|---|",
    ...rows,
  ].join("\n");
}

let cached: Json | undefined;
/** The document, built on first use (zod's conversion of every schema takes a few ms). */
export function openApiDocument(): Json {
  return (cached ??= build());
}
