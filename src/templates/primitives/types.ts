/**
 * The shape of a verification primitive (Karenina `VerificationPrimitive` / `TracePrimitive`).
 *
 * A primitive owns its params schema (strict: an unknown param is an error) and its comparison.
 * `check` drives the binary verdict, `score` the granular one; the default score is 1 or 0 from
 * `check`. A primitive may throw on values it cannot compare (Python would raise); the caller
 * turns that into `field_verification_error`, never into a pass.
 *
 * Trace primitives (`kind: "trace"`) never see a judge-filled value: `checkTrace` reads the raw
 * answer, and the field passes when that equals `bool(ground_truth)`. Their `check` throws, as
 * Karenina's does, so a caller that forgets the distinction fails loudly.
 */
import type { z } from "zod";

/** "parsed" primitives compare a judge-filled field; "trace" ones read the raw answer. */
export type PrimitiveKind = "parsed" | "trace";

export interface Primitive<S extends z.ZodObject = z.ZodObject> {
  kind: PrimitiveKind;
  /** One line for error messages and docs. */
  summary: string;
  paramsSchema: S;
  check(extracted: unknown, groundTruth: unknown, params: z.output<S>): boolean;
  score(extracted: unknown, groundTruth: unknown, params: z.output<S>): number;
  /** Trace primitives only: the condition on the raw answer. */
  checkTrace?(rawTrace: string, params: z.output<S>): boolean;
  /**
   * Why this ground truth could never be compared (every answer would raise or fail), checked
   * when the template is submitted; null when it is fine. Absent: any ground truth goes.
   */
  groundTruthProblem?(groundTruth: unknown, params: z.output<S>): string | null;
}

/** A registry entry seen from outside, once its params have been validated by its own schema. */
export interface AnyPrimitive {
  kind: PrimitiveKind;
  summary: string;
  paramsSchema: z.ZodObject;
  check(extracted: unknown, groundTruth: unknown, params: unknown): boolean;
  score(extracted: unknown, groundTruth: unknown, params: unknown): number;
  checkTrace?(rawTrace: string, params: unknown): boolean;
  groundTruthProblem?(groundTruth: unknown, params: unknown): string | null;
}

type PrimitiveSpec<S extends z.ZodObject> = Pick<Primitive<S>, "summary" | "paramsSchema" | "check"> &
  Partial<Pick<Primitive<S>, "score" | "groundTruthProblem">>;

/** A parsed primitive, with Karenina's default score = check ? 1 : 0. */
export function definePrimitive<S extends z.ZodObject>(spec: PrimitiveSpec<S>): Primitive<S> {
  return {
    kind: "parsed",
    summary: spec.summary,
    paramsSchema: spec.paramsSchema,
    check: spec.check,
    score: spec.score ?? ((x, gt, p) => (spec.check(x, gt, p) ? 1 : 0)),
    ...(spec.groundTruthProblem ? { groundTruthProblem: spec.groundTruthProblem } : {}),
  };
}

type TraceSpec<S extends z.ZodObject> = Pick<Primitive<S>, "summary" | "paramsSchema"> & {
  checkTrace(rawTrace: string, params: z.output<S>): boolean;
};

/** A trace primitive: evaluated on the raw answer, hidden from the judge. */
export function defineTracePrimitive<S extends z.ZodObject>(spec: TraceSpec<S>): Primitive<S> {
  const misuse = (): never => {
    throw new Error("a trace primitive is evaluated on the raw answer (checkTrace), not on a parsed value");
  };
  return {
    kind: "trace",
    summary: spec.summary,
    paramsSchema: spec.paramsSchema,
    check: misuse,
    score: misuse,
    checkTrace: spec.checkTrace,
  };
}
