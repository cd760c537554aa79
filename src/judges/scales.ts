/**
 * Scales: what a judge may answer, the instruction that says so, and the check of an answer.
 *
 * - discrete: a list of values, or a numeric range (start, end, step); `end_is_worst` flips the
 *   "worst … best" wording (the values themselves are unchanged — pass ⇔ score ≥ threshold, so an
 *   end-is-worst scale is turned round with a `map` unit `op: invert`).
 * - likert: discrete 1..5 unless given.
 * - boolean: true/false; yes/Yes/YES/true/True/TRUE (and the no/false spellings) are accepted.
 * - continuous: any number in [min, max]; there is no token support (no token-probability extractor).
 * `parse` returns the canonical value or undefined, and is what validation means everywhere.
 */
import type { ScaleSpec } from "../schemas/judge";

export type ScaleValue = string | number | boolean;

export interface Scale {
  kind: "discrete" | "boolean" | "continuous";
  /** The allowed values in order (empty for continuous). */
  values: ScaleValue[];
  min?: number;
  max?: number;
  endIsWorst: boolean;
  /** The instruction appended to a unit's prompt. */
  prompt(): string;
  /** The canonical value for a model's answer, or undefined when it is not on the scale. */
  parse(raw: unknown): ScaleValue | undefined;
  /** JSON Schema of one answer, sent to the provider. */
  jsonSchema(): Record<string, unknown>;
  /** The number this value pools as (labels: 1 for the passing label, else 0). */
  numeric(value: ScaleValue, passValue?: ScaleValue): number;
  /** Whether answers are labels (pooled as the vote share of the passing label). */
  isLabel: boolean;
}

const TRUE_WORDS = new Set(["yes", "true"]);
const FALSE_WORDS = new Set(["no", "false"]);

function discrete(values: ScaleValue[], endIsWorst: boolean): Scale {
  const numericValues = values.every((v) => typeof v === "number");
  const nums = values.filter((v): v is number => typeof v === "number");
  const [first, last] = [values[0], values[values.length - 1]];
  const [worst, best] = endIsWorst ? [last, first] : [first, last];
  return {
    kind: "discrete",
    values,
    endIsWorst,
    isLabel: !numericValues,
    ...(numericValues ? { min: Math.min(...nums), max: Math.max(...nums) } : {}),
    prompt: () =>
      numericValues
        ? `Respond with a single value from ${values.join(", ")}, where ${worst} is the worst and ${best} is the best.`
        : `Respond with exactly one of: ${values.join(", ")}.`,
    parse(raw) {
      if (numericValues) {
        const n = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw.trim()) : NaN;
        return values.find((v) => v === n);
      }
      if (typeof raw !== "string" && typeof raw !== "number") return undefined;
      const s = String(raw).trim();
      return values.find((v) => String(v) === s) ?? values.find((v) => String(v).toLowerCase() === s.toLowerCase());
    },
    jsonSchema: () =>
      numericValues
        ? { type: nums.every(Number.isInteger) ? "integer" : "number", enum: values }
        : { type: "string", enum: values.map(String) },
    numeric: (v, passValue) => (numericValues ? (v as number) : v === passValue ? 1 : 0),
  };
}

function booleanScale(): Scale {
  return {
    kind: "boolean",
    values: [true, false],
    endIsWorst: false,
    isLabel: true,
    prompt: () => "Respond with true (yes) or false (no).",
    parse(raw) {
      if (typeof raw === "boolean") return raw;
      if (typeof raw !== "string") return undefined;
      const s = raw.trim();
      // yes / Yes / YES, not yEs: the spellings a model actually writes.
      const ok = s === s.toLowerCase() || s === s.toUpperCase() || s === s[0]!.toUpperCase() + s.slice(1).toLowerCase();
      if (!ok) return undefined;
      if (TRUE_WORDS.has(s.toLowerCase())) return true;
      if (FALSE_WORDS.has(s.toLowerCase())) return false;
      return undefined;
    },
    jsonSchema: () => ({ type: "boolean" }),
    numeric: (v, passValue = true) => (v === passValue ? 1 : 0),
  };
}

function continuous(min: number, max: number): Scale {
  return {
    kind: "continuous",
    values: [],
    min,
    max,
    endIsWorst: false,
    isLabel: false,
    prompt: () => `Respond with a single number between ${min} and ${max} (inclusive), where ${min} is the worst and ${max} is the best.`,
    parse(raw) {
      const n = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw.trim()) : NaN;
      return Number.isFinite(n) && n >= min && n <= max ? n : undefined;
    },
    jsonSchema: () => ({ type: "number", minimum: min, maximum: max }),
    numeric: (v) => v as number,
  };
}

/** start..end by step, inclusive; a float step is rounded to 10 decimals so 0.1 steps stay exact. */
export function range(start: number, end: number, step = 1): number[] {
  const out: number[] = [];
  const dir = end >= start ? 1 : -1;
  const s = Math.abs(step) * dir;
  for (let i = 0; out.length <= 1000; i++) {
    const v = Math.round((start + i * s) * 1e10) / 1e10;
    if ((dir > 0 && v > end) || (dir < 0 && v < end)) break;
    out.push(v);
  }
  return out;
}

/** Builds a scale from its config; errors are for config validation (caller adds the path). */
export function buildScale(spec: ScaleSpec): Scale | { error: string } {
  if (Array.isArray(spec)) {
    if (spec.every((v) => typeof v === "number") && (spec.length === 2 || spec.length === 3)) {
      const [a, b, step] = spec as number[];
      if (step !== undefined && step <= 0) return { error: "a range step must be > 0" };
      return rangeScale(a!, b!, step, false);
    }
    return uniqueValues(spec as ScaleValue[], false);
  }
  switch (spec.type) {
    case "discrete":
      if (spec.values) return uniqueValues(spec.values, spec.end_is_worst ?? false);
      if (spec.range) {
        const [a, b, step] = spec.range;
        if (step !== undefined && step <= 0) return { error: "a range step must be > 0" };
        return rangeScale(a, b, step, spec.end_is_worst ?? false);
      }
      return { error: "a discrete scale needs values or range" };
    case "likert": {
      const [min, max] = [spec.min ?? 1, spec.max ?? 5];
      if (min >= max) return { error: `likert min (${min}) must be < max (${max})` };
      return rangeScale(min, max, 1, spec.end_is_worst ?? false);
    }
    case "boolean":
      return booleanScale();
    case "continuous":
      return spec.min < spec.max ? continuous(spec.min, spec.max) : { error: "continuous min must be < max" };
  }
}

/** A scale offers at most this many values: a judge cannot choose among more, and the prompt lists them. */
export const MAX_SCALE_VALUES = 1001;

/**
 * [a, b, step] that yields one value (e.g. [1, 5, 10]) is a mistake, not a one-answer scale; one
 * that yields more than MAX_SCALE_VALUES is refused (it used to be cut short silently).
 */
function rangeScale(a: number, b: number, step: number | undefined, endIsWorst: boolean): Scale | { error: string } {
  const count = Math.floor(Math.abs(b - a) / Math.abs(step ?? 1) + 1e-9) + 1;
  if (!Number.isFinite(count) || count > MAX_SCALE_VALUES) {
    return {
      error: `this range has ${Number.isFinite(count) ? count : "too many"} values; a scale has at most ${MAX_SCALE_VALUES} (use a larger step, or a continuous scale)`,
    };
  }
  const values = range(a, b, step);
  if (values.length < 2)
    return { error: "this range has fewer than two values; give [min, max] or [min, max, step] with step < max − min" };
  return discrete(values, endIsWorst);
}

function uniqueValues(values: ScaleValue[], endIsWorst: boolean): Scale | { error: string } {
  if (values.length < 2) return { error: "a scale needs at least two values" };
  if (values.length > MAX_SCALE_VALUES) return { error: `a scale has at most ${MAX_SCALE_VALUES} values; this one has ${values.length}` };
  if (new Set(values.map(String)).size !== values.length) return { error: "scale values must be distinct" };
  return discrete(values, endIsWorst);
}

export const likert = (): Scale => discrete(range(1, 5), false);
export const booleanOnly = booleanScale;
export const categories = (values: string[]): Scale | { error: string } => uniqueValues(values, false);
