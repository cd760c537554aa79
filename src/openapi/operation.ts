/**
 * One documented operation: the route (as Hono spells it), the zod schemas of what it takes and
 * answers, and the error codes it may return beyond those every route of its kind may. The
 * document (document.ts) and the /docs page are built from a list of these; the route-coverage
 * test compares that list with the app's real route table.
 */
import type { z } from "zod";
import type { ErrorCode } from "../schemas/api-error";
import type { Scope } from "../schemas/scopes";

export type Method = "get" | "post" | "put" | "patch" | "delete";

export interface Payload {
  schema: z.ZodType;
  /** Default application/json. */
  contentType?: string;
  /**
   * A stream's frames (text/event-stream): each one's shape, documented as `x-item-schema` (OpenAPI
   * 3.2 calls it `itemSchema`; 3.1, which the document is, has no such field).
   */
  itemSchema?: z.ZodType;
  /** Validated against `schema` by test/unit/openapi/examples.test.ts. */
  example?: unknown;
  /** Other media types the same status may answer with, each with its schema (an export's formats). */
  alternatives?: { contentType: string; schema: z.ZodType }[];
}

export interface Operation {
  method: Method;
  /** Hono's spelling, `:name` for a parameter: `/v1/runs/:id`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /**
   * `tenant`: an API key (or EDGEVAL_API_TOKEN) with `scope`; `admin`: EDGEVAL_ADMIN_TOKEN;
   * `signature`: no key, a trigger's signed delivery (src/triggers/README.md); `judgeToken`: no
   * key, a stored judge's token in the query (src/stored-judges/README.md).
   */
  auth: { kind: "tenant"; scope: Scope } | { kind: "admin" } | { kind: "signature" } | { kind: "judgeToken" };
  /** Parameter descriptions by name (each `:name` of the path is a required string). */
  pathParams?: Record<string, string>;
  /**
   * What the query may hold, checked by the route's handler (src/http/body.ts validateQuery).
   * Without it the route takes no query parameter but its auth kind's (AUTH_QUERY): any other is a
   * 400 before the handler runs, once the caller is authorised (src/http/undeclared-query.ts).
   */
  query?: z.ZodObject;
  headers?: { name: string; description: string }[];
  /** `optional`: every field has a default, so the body may be left out (read as `{}`: src/http/body.ts readOptionalJson). */
  body?: Payload & { maxBytes: number; optional?: boolean };
  /** By status; a 2xx without a schema has no JSON body. */
  responses: Record<number, Payload & { description: string }>;
  /** Codes particular to this operation; auth, body, query and path errors are added from the rest. */
  errors?: ErrorCode[];
}

/**
 * The query parameter a judge token comes in: promptfoo's webhook assertion sends no header but
 * Content-Type, so the credential is in the URL (src/stored-judges/README.md).
 */
export const JUDGE_TOKEN_QUERY = "token";

/**
 * The query parameters each auth kind carries itself: an operation without a `query` schema takes
 * these and no other. A Record, so a new auth kind has to say.
 */
export const AUTH_QUERY: Record<Operation["auth"]["kind"], readonly string[]> = {
  tenant: [],
  admin: [],
  signature: [],
  judgeToken: [JUDGE_TOKEN_QUERY],
};
