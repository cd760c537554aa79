/**
 * A run body naming `preset_id` → the same body with `config` = the preset's config, its top-level
 * keys replaced by those the body's `config` gives. Done before the body is validated, so the
 * result is checked exactly as a body that spelled the whole config out.
 */
import type { FieldIssue } from "../schemas/field-issue";
import type { PresetRecord } from "./presets-repo";

export type Applied = { ok: true; body: unknown } | { ok: false; issues: FieldIssue[] };

export async function applyPreset(raw: unknown, load: (presetId: string) => Promise<PresetRecord | null>): Promise<Applied> {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw) || !("preset_id" in raw)) return { ok: true, body: raw };
  const { preset_id, config, ...rest } = raw as Record<string, unknown>;
  if (typeof preset_id !== "string" || preset_id.length === 0)
    return { ok: false, issues: [{ path: "preset_id", message: "preset_id must be the id of a stored preset (POST /v1/presets)" }] };
  if (config !== undefined && (config === null || typeof config !== "object" || Array.isArray(config))) {
    return {
      ok: false,
      issues: [{ path: "config", message: "with preset_id, config holds overrides of the preset's top-level keys (an object)" }],
    };
  }
  const preset = await load(preset_id);
  if (!preset)
    return {
      ok: false,
      issues: [{ path: "preset_id", message: `no preset ${JSON.stringify(preset_id)}; list them with GET /v1/presets` }],
    };
  return { ok: true, body: { ...rest, config: { ...preset.config, ...(config as Record<string, unknown> | undefined) } } };
}
