/**
 * Turning a judge's raw value into a trait score: booleans (lax, as Pydantic reads them), scores
 * clamped into range, literal classes mapped to their index (-1 for a class that does not exist,
 * the raw label kept). `null` means the judge gave nothing usable: the trait failed, not "false".
 */
import type { LLMRubricTrait } from "../schemas/rubric";
import { scoreRange } from "./prompts";

export function asBoolean(v: unknown): boolean | null {
  if (typeof v === "boolean") return v;
  if (typeof v === "string" && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === "true";
  return null;
}

export function clampScore(v: unknown, lo: number, hi: number): number | null {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  if (!Number.isFinite(n)) return null;
  return Math.min(hi, Math.max(lo, Math.round(n)));
}

/** A boolean or score LLM trait's value, or null when the judge's value cannot be read. */
export function traitValue(t: LLMRubricTrait, v: unknown): boolean | number | null {
  if (t.kind === "boolean") return asBoolean(v);
  const [lo, hi] = scoreRange(t);
  return typeof v === "boolean" ? null : clampScore(v, lo, hi);
}

/** Class → index: exact match, then case-insensitive; otherwise -1 with the raw label. */
export function literalIndex(classes: Record<string, string>, label: unknown): { score: number; label: string } {
  const names = Object.keys(classes);
  const raw = typeof label === "string" ? label : JSON.stringify(label ?? null);
  const exact = names.indexOf(raw);
  if (exact >= 0) return { score: exact, label: raw };
  const lower = raw.trim().toLowerCase();
  const ci = names.findIndex((n) => n.toLowerCase() === lower);
  return ci >= 0 ? { score: ci, label: names[ci]! } : { score: -1, label: raw };
}
