/** What /v1/presets answers (src/http/presets.ts types its bodies by these). */
import { z } from "zod";

export const PresetView = z.strictObject({
  preset_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  /** The config as stored (Karenina's VerificationConfig fields). */
  config: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  updated_at: z.string(),
});
export const PresetList = z.strictObject({ presets: z.array(PresetView), next_cursor: z.string().nullable() });
export const DeletedPreset = z.strictObject({ preset_id: z.string(), deleted: z.literal(true) });
