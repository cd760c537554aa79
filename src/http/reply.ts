/**
 * A JSON answer typed by the zod schema that /openapi.json publishes for it: the body must fit
 * the schema's input type, so a handler cannot grow or drop a documented field silently.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";

export function reply<S extends z.ZodType>(c: Context, _documented: S, body: z.input<S>, status: ContentfulStatusCode = 200): Response {
  return c.json(body as object, status);
}
