/**
 * The shape of a verification primitive (Karenina `VerificationPrimitive`).
 *
 * A primitive owns its params schema (strict: an unknown param is an error) and its comparison.
 * `check` drives the binary verdict, `score` the granular one; the default score is 1 or 0 from
 * `check`. A primitive may throw on values it cannot compare (Python would raise); the caller
 * turns that into `field_verification_error`, never into a pass.
 */
import type { z } from "zod";

/** "parsed" primitives compare a judge-filled field; "trace" ones (later) read the raw answer. */
export type PrimitiveKind = "parsed" | "trace";

export interface Primitive<S extends z.ZodObject = z.ZodObject> {
  kind: PrimitiveKind;
  /** One line for error messages and docs. */
  summary: string;
  paramsSchema: S;
  check(extracted: unknown, groundTruth: unknown, params: z.output<S>): boolean;
  score(extracted: unknown, groundTruth: unknown, params: z.output<S>): number;
}

/** A registry entry seen from outside, once its params have been validated by its own schema. */
export interface AnyPrimitive {
  kind: PrimitiveKind;
  summary: string;
  paramsSchema: z.ZodObject;
  check(extracted: unknown, groundTruth: unknown, params: unknown): boolean;
  score(extracted: unknown, groundTruth: unknown, params: unknown): number;
}

type PrimitiveSpec<S extends z.ZodObject> = Omit<Primitive<S>, "score" | "kind"> &
  Partial<Pick<Primitive<S>, "score" | "kind">>;

/** Fills the Karenina defaults: kind "parsed", score = check ? 1 : 0. */
export function definePrimitive<S extends z.ZodObject>(spec: PrimitiveSpec<S>): Primitive<S> {
  return {
    kind: spec.kind ?? "parsed",
    summary: spec.summary,
    paramsSchema: spec.paramsSchema,
    check: spec.check,
    score: spec.score ?? ((x, gt, p) => (spec.check(x, gt, p) ? 1 : 0)),
  };
}
