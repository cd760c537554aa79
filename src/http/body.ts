/**
 * Reads a JSON request body under a byte cap and validates it with a zod schema.
 * 415 for a non-JSON content type, 413 past the cap, 400 with every failing field's path.
 */
import type { Context } from "hono";
import type { z } from "zod";
import { ApiFailure, type FieldIssue, formatPath, invalidBody } from "./errors";

export interface RawJsonBody {
  text: string;
  value: unknown;
}

export async function readJson(c: Context, maxBytes: number): Promise<RawJsonBody> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) {
    throw new ApiFailure({
      code: "unsupported_media_type",
      message: `send the body as JSON with "Content-Type: application/json" (got ${JSON.stringify(type || "none")})`,
    });
  }
  const declared = Number(c.req.header("content-length") ?? "NaN");
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const text = await readCapped(c.req.raw, maxBytes);
  try {
    return { text, value: JSON.parse(text) };
  } catch (err) {
    throw new ApiFailure({ code: "invalid_json", message: `body is not valid JSON: ${(err as Error).message}` });
  }
}

export function validate<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw invalidBody(parsed.error.issues.flatMap(toFieldIssues));
}

/** An unknown key is reported at its own path, so the caller sees exactly which key to remove. */
function toFieldIssues(issue: z.core.$ZodIssue): FieldIssue[] {
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((k) => ({ path: formatPath([...issue.path, k]), message: "unknown field; remove it (check the spelling)" }));
  }
  return [{ path: formatPath(issue.path), message: issue.message }];
}

async function readCapped(req: Request, maxBytes: number): Promise<string> {
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const ch of chunks) {
    all.set(ch, at);
    at += ch.byteLength;
  }
  return new TextDecoder().decode(all);
}

function tooLarge(maxBytes: number): ApiFailure {
  return new ApiFailure({
    code: "body_too_large",
    message: `body exceeds ${Math.round(maxBytes / 1_000_000)} MB; split the benchmark into several runs`,
  });
}
