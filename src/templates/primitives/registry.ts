/**
 * THE registry of verification primitives. Template validation (`verify_with.type` and its
 * params) and evaluation both read this object, so adding a primitive is one import and one
 * entry here. Names are Karenina's class names, in Karenina's order.
 */
import type { z } from "zod";
import { BooleanMatch } from "./boolean-match";
import { ContainsAll } from "./contains-all";
import { ContainsAny } from "./contains-any";
import { DateMatch } from "./date-match";
import { DateRange } from "./date-range";
import { DateTolerance } from "./date-tolerance";
import { ExactMatch } from "./exact-match";
import { LiteralMatch } from "./literal-match";
import { NumericExact } from "./numeric-exact";
import { NumericGraded } from "./numeric-graded";
import { NumericMaximum } from "./numeric-maximum";
import { NumericMinimum } from "./numeric-minimum";
import { NumericRange } from "./numeric-range";
import { NumericRangeGraded } from "./numeric-range-graded";
import { NumericThresholdGraded } from "./numeric-threshold-graded";
import { NumericTolerance } from "./numeric-tolerance";
import { OrderedMatch } from "./ordered-match";
import { RegexMatch } from "./regex-match";
import { SemanticMatch } from "./semantic-match";
import { SetContainment } from "./set-containment";
import { TraceContains } from "./trace-contains";
import { TraceLength } from "./trace-length";
import { TraceRegex } from "./trace-regex";
import type { AnyPrimitive } from "./types";

export const PRIMITIVES = {
  BooleanMatch,
  ExactMatch,
  ContainsAny,
  ContainsAll,
  RegexMatch,
  SemanticMatch,
  NumericExact,
  NumericTolerance,
  NumericGraded,
  NumericRange,
  NumericRangeGraded,
  NumericMinimum,
  NumericMaximum,
  NumericThresholdGraded,
  SetContainment,
  OrderedMatch,
  LiteralMatch,
  DateMatch,
  DateTolerance,
  DateRange,
  TraceRegex,
  TraceContains,
  TraceLength,
} as const;

export type PrimitiveName = keyof typeof PRIMITIVES;
export const PRIMITIVE_NAMES = Object.keys(PRIMITIVES) as PrimitiveName[];

/** A validated `verify_with`: the primitive name and its params with defaults applied. */
export type VerifyWith = {
  [K in PrimitiveName]: { type: K; params: z.output<(typeof PRIMITIVES)[K]["paramsSchema"]> };
}[PrimitiveName];

export function isPrimitiveName(name: string): name is PrimitiveName {
  return Object.hasOwn(PRIMITIVES, name);
}

/** The registry entry, widened so a caller holding a validated `VerifyWith` can call it. */
export function primitiveFor(verifyWith: VerifyWith): AnyPrimitive {
  return PRIMITIVES[verifyWith.type] as unknown as AnyPrimitive;
}

export function unknownPrimitiveMessage(name: string): string {
  return `unknown primitive ${JSON.stringify(name)}; known primitives: ${PRIMITIVE_NAMES.join(", ")}`;
}
