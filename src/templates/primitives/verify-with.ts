/**
 * The `verify_with` schema, driven by the primitive registry (no second list of names/params).
 *
 * Accepts edgeval's `{type, params: {...}}` and, for Karenina compatibility, the flat form
 * Karenina serialises (`{"type": "NumericTolerance", "tolerance": 0.5}` in TemplateSpec JSON and
 * `__verification__`). Both parse to `{type, params}` with the primitive's defaults applied.
 * Issues keep the path the user wrote (`verify_with.params.tol` or `verify_with.tol`).
 */
import { z } from "zod";
import { WIRE_PARSE, whenMissing, wireIssues } from "../../lib/wire-issues";
import { PRIMITIVES, type VerifyWith, isPrimitiveName, unknownPrimitiveMessage } from "./registry";

const VerifyWithInput = z.looseObject({
  type: z.string({ error: whenMissing("verify_with.type is required: the name of a primitive") }),
  params: z.record(z.string(), z.unknown(), { error: "params must be an object" }).optional(),
});

export const VerifyWithSchema = VerifyWithInput.transform((input, ctx): VerifyWith => {
  const { type, params, ...flat } = input;
  if (!isPrimitiveName(type)) {
    ctx.issues.push({ code: "custom", path: ["type"], message: unknownPrimitiveMessage(type), input: type });
    return z.NEVER;
  }
  const flatKeys = Object.keys(flat);
  if (params !== undefined && flatKeys.length > 0) {
    ctx.issues.push({
      code: "custom",
      path: [flatKeys[0]!],
      message: `put ${type}'s parameters either inside "params" or beside "type", not both`,
      input: flat,
    });
    return z.NEVER;
  }
  const raw = params ?? flat;
  const prefix = params !== undefined ? ["params"] : [];
  const parsed = PRIMITIVES[type].paramsSchema.safeParse(raw, WIRE_PARSE);
  if (!parsed.success) {
    const known = Object.keys(PRIMITIVES[type].paramsSchema.shape);
    for (const issue of parsed.error.issues) {
      if (issue.code === "unrecognized_keys") {
        const message =
          `${type} has no parameter ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}; ` +
          (known.length ? `its parameters are ${known.join(", ")}` : "it takes no parameters");
        ctx.issues.push({ code: "custom", path: [...prefix, ...issue.path], message, input: raw });
        continue;
      }
      // Each issue keeps its own input, so the wire says what came (src/lib/wire-issues.ts).
      for (const i of wireIssues(issue))
        ctx.issues.push({ code: "custom", path: [...prefix, ...i.path], message: `${type}: ${i.message}`, input: raw });
    }
    return z.NEVER;
  }
  return { type, params: parsed.data } as VerifyWith;
});
