/** Test helpers: parse and return the issues as "path: message" lines, to assert exact paths. */
import { expect } from "vitest";
import type { z } from "zod";

export type IssueLine = { path: string; message: string };

/** Dotted path with [i] for indexes, the way the API reports it: fields[0].verify_with.type */
export function pathOf(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, seg) => (typeof seg === "number" ? `${acc}[${seg}]` : acc ? `${acc}.${String(seg)}` : String(seg)), "");
}

export function issuesOf(schema: z.ZodType, input: unknown): IssueLine[] {
  const r = schema.safeParse(input);
  expect(r.success, "expected the input to be rejected").toBe(false);
  return r.error!.issues.map((i) => ({ path: pathOf(i.path), message: i.message }));
}

/** Asserts an issue exists at exactly `path` whose message matches `message`. */
export function expectIssue(schema: z.ZodType, input: unknown, path: string, message: RegExp): void {
  const issues = issuesOf(schema, input);
  expect(issues, JSON.stringify(issues)).toContainEqual({ path, message: expect.stringMatching(message) });
}

export function parseOk<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) throw new Error(JSON.stringify(r.error.issues.map((i) => ({ path: pathOf(i.path), message: i.message }))));
  return r.data;
}
