/** Wire shapes of /v1/schedules (src/schedules/README.md). */
import { z } from "zod";
import { parseCron } from "../lib/cron";

const Cron = z
  .string()
  .max(200)
  .superRefine((v, ctx) => {
    const p = parseCron(v);
    if (!p.ok) ctx.addIssue({ code: "custom", message: p.message });
  });

const PresetId = z.string().min(1).max(100);
/**
 * As in a POST /v1/runs body: the whole VerificationConfig, or with `preset_id` overrides of the
 * preset's top-level keys. Checked as a run body at create and change (a dry run through submitRun).
 */
const ScheduleConfig = z.record(z.string(), z.unknown(), { error: "config must be a verification config object" });

export const CreateScheduleRequest = z.strictObject({
  name: z.string().min(1).max(200),
  /** Five fields, UTC. */
  cron: Cron,
  /** A stored benchmark of the tenant (POST /v1/benchmarks). */
  benchmark_id: z.string().min(1).max(100),
  /** A stored preset (POST /v1/presets), read at every run: changing the preset changes later runs. */
  preset_id: PresetId.optional(),
  config: ScheduleConfig.default({}),
  enabled: z.boolean().default(true),
});
export type CreateScheduleRequest = z.output<typeof CreateScheduleRequest>;

export const UpdateScheduleRequest = z
  .strictObject({
    name: z.string().min(1).max(200).optional(),
    cron: Cron.optional(),
    /** null: no preset any more (config is then the whole VerificationConfig). */
    preset_id: PresetId.nullable().optional(),
    config: ScheduleConfig.optional(),
    enabled: z.boolean().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { error: "send at least one of name, cron, preset_id, config, enabled" });
