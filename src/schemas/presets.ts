/** Wire shapes of /v1/presets (src/presets/README.md). */
import { z } from "zod";

/** Karenina writes these beside `config`; edgeval keeps its own id and times and ignores them. */
const KARENINA_METADATA = new Set(["id", "created_at", "updated_at"]);

/**
 * A Karenina preset file as is: `{config, name?, description?}` plus Karenina's own `id`,
 * `created_at`, `updated_at` (ignored) and any `_comment…` keys (its files keep comments outside
 * `config` because VerificationConfig forbids extra fields). Any other key is refused.
 */
export const PresetRequest = z
  .looseObject({
    name: z.string().min(1).max(200).optional(),
    description: z.string().max(2000).nullish(),
    config: z.record(z.string(), z.unknown(), { error: "config must be a verification config object" }),
  })
  .superRefine((body, ctx) => {
    for (const key of Object.keys(body)) {
      if (["name", "description", "config"].includes(key) || KARENINA_METADATA.has(key) || key.startsWith("_comment")) continue;
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: `unknown field ${JSON.stringify(key)}: a preset is {name?, description?, config} (Karenina's id, created_at, updated_at and _comment… keys are accepted and ignored)`,
      });
    }
  });
export type PresetRequest = z.output<typeof PresetRequest>;

/** How a run or trigger names a preset: `preset_id`, and `config` (optional) overriding its top-level keys. */
export const PresetReference = z.looseObject({
  preset_id: z.string().min(1, { error: "preset_id must not be empty" }).max(100),
  config: z.record(z.string(), z.unknown(), { error: "with preset_id, config holds overrides of the preset's top-level keys" }).optional(),
});
