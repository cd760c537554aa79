/** Test helper: validate params through the registry (defaults applied), then check / score / checkTrace. */
import { PRIMITIVES, type PrimitiveName } from "../../../src/templates";
import type { AnyPrimitive } from "../../../src/templates/primitives/types";
import { VerifyWithSchema } from "../../../src/templates/primitives/verify-with";
import { parseOk } from "../schemas/issues";

export function params(type: PrimitiveName, p: Record<string, unknown> = {}): unknown {
  return parseOk(VerifyWithSchema, { type, params: p }).params;
}

export function run(type: PrimitiveName, p: Record<string, unknown>, extracted: unknown, gt: unknown = null) {
  const prim = PRIMITIVES[type] as unknown as AnyPrimitive;
  const ps = params(type, p);
  return { check: prim.check(extracted, gt, ps), score: prim.score(extracted, gt, ps) };
}

export const check = (type: PrimitiveName, p: Record<string, unknown>, extracted: unknown, gt: unknown = null) =>
  (PRIMITIVES[type] as unknown as AnyPrimitive).check(extracted, gt, params(type, p));

export const score = (type: PrimitiveName, p: Record<string, unknown>, extracted: unknown, gt: unknown = null) =>
  (PRIMITIVES[type] as unknown as AnyPrimitive).score(extracted, gt, params(type, p));

export const checkTrace = (type: PrimitiveName, p: Record<string, unknown>, raw: string) =>
  (PRIMITIVES[type] as unknown as AnyPrimitive).checkTrace!(raw, params(type, p));
