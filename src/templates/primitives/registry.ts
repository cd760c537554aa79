/**
 * THE registry of verification primitives. Template validation (`verify_with.type` and its
 * params) and evaluation both read this object, so adding a primitive is one import and one
 * entry here. Names are Karenina's class names.
 */
import type { z } from "zod";
import { BooleanMatch } from "./boolean-match";
import { ContainsAny } from "./contains-any";
import { ExactMatch } from "./exact-match";
import { NumericTolerance } from "./numeric-tolerance";
import { SetContainment } from "./set-containment";
import type { AnyPrimitive } from "./types";

export const PRIMITIVES = {
  BooleanMatch,
  ExactMatch,
  ContainsAny,
  NumericTolerance,
  SetContainment,
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
