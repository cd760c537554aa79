/**
 * Callable traits: JavaScript `function evaluate(text)` run through the CallableTraitPort (the
 * QuickJS sandbox at the edge). Karenina's cloudpickled Python cannot run here: such a trait is
 * null with a warning, never a silent false.
 */
import type { CallableRubricTrait } from "../schemas/rubric";
import type { CallableTraitPort } from "./types";
import { asBoolean, clampScore, literalIndex } from "./values";

export type CallableResult = { ok: true; value: boolean | number } | { ok: false; error: string };

export async function evaluateCallableTrait(
  t: CallableRubricTrait,
  text: string,
  port: CallableTraitPort | undefined,
): Promise<CallableResult> {
  if (!t.javascript_code)
    return {
      ok: false,
      error: `callable trait ${t.name} has only Karenina's pickled Python (callable_code), which edgeval cannot run; give javascript_code`,
    };
  if (!port) return { ok: false, error: `callable trait ${t.name}: no sandbox is available to run its code` };
  const out = await port.run({ trait: t.name, source: t.javascript_code, text });
  if (!out.ok) return { ok: false, error: `callable trait ${t.name}: ${out.error}` };
  return interpret(t, out.value);
}

function interpret(t: CallableRubricTrait, v: unknown): CallableResult {
  if (t.kind === "boolean") {
    const b = asBoolean(v);
    return b === null
      ? { ok: false, error: `callable trait ${t.name} returned ${JSON.stringify(v)}, not a boolean` }
      : { ok: true, value: t.invert_result ? !b : b };
  }
  if (t.kind === "literal") {
    const classes = t.classes ?? {};
    if (typeof v === "number" && Number.isInteger(v)) return { ok: true, value: v >= 0 && v < Object.keys(classes).length ? v : -1 };
    return { ok: true, value: literalIndex(classes, v).score };
  }
  if (typeof v !== "number" || !Number.isFinite(v))
    return { ok: false, error: `callable trait ${t.name} returned ${JSON.stringify(v)}, not a number` };
  const lo = t.min_score ?? 1;
  const hi = t.max_score ?? 5;
  return { ok: true, value: Number.isInteger(v) ? clampScore(v, lo, hi)! : Math.min(hi, Math.max(lo, v)) };
}
