/**
 * /v1/presets (src/presets/README.md): a tenant's stored verification configs, Karenina's preset
 * files accepted as is. Runs and triggers name one by `preset_id`. Scopes: runs:write to change
 * (a preset decides what runs do, as a run body does), runs:read to look.
 */
import { type Context, Hono } from "hono";
import { z } from "zod";
import { deletePreset, getPreset, listPresets, mintPresetId, type PresetRecord, presetView, putPreset } from "../presets/presets-repo";
import { ListQuery } from "../schemas/api";
import { PRESET_BODY_LIMIT } from "../schemas/body-limits";
import { PresetRequest } from "../schemas/presets";
import { DeletedPreset, PresetList, PresetView } from "../schemas/preset-views";
import { VerificationConfig } from "../schemas/verification-config";
import { type AppEnv, requireScope, tenantOf } from "./auth";
import { readJson, validate, validateQuery } from "./body";
import { decodeCreatedCursor, nextCreatedCursor } from "./cursor";
import { ApiFailure } from "./errors";
import { reply } from "./reply";

export const presets = new Hono<AppEnv>();

/** The config must be valid on its own: a run naming the preset with no overrides would run it. */
const ConfigCheck = z.object({ config: VerificationConfig });

async function readPreset(c: Context<AppEnv>): Promise<PresetRequest> {
  const body = validate(PresetRequest, (await readJson(c, PRESET_BODY_LIMIT)).value);
  validate(ConfigCheck, { config: body.config });
  return body;
}

presets.post("/", requireScope("runs:write"), async (c) => {
  const body = await readPreset(c);
  const now = new Date().toISOString();
  const presetId = mintPresetId();
  const record: PresetRecord = {
    tenant_id: tenantOf(c).tenant_id,
    preset_id: presetId,
    name: body.name ?? presetId,
    description: body.description ?? null,
    config: body.config,
    created_at: now,
    updated_at: now,
  };
  await putPreset(c.env.DB, record);
  return reply(c, PresetView, presetView(record), 201);
});

presets.get("/", requireScope("runs:read"), async (c) => {
  const q = validateQuery(ListQuery, c.req.queries());
  const rows = await listPresets(c.env.DB, tenantOf(c).tenant_id, q.limit, decodeCreatedCursor(q.cursor));
  return reply(c, PresetList, { presets: rows.map(presetView), next_cursor: nextCreatedCursor(rows, q.limit, (p) => p.preset_id) });
});

presets.get("/:id", requireScope("runs:read"), async (c) => reply(c, PresetView, presetView(await requirePreset(c))));

/** Replaces the preset; runs already started keep the config they were planned with. */
presets.put("/:id", requireScope("runs:write"), async (c) => {
  const old = await requirePreset(c);
  const body = await readPreset(c);
  const record: PresetRecord = {
    ...old,
    name: body.name ?? old.name,
    description: body.description ?? null,
    config: body.config,
    updated_at: new Date().toISOString(),
  };
  await putPreset(c.env.DB, record);
  return reply(c, PresetView, presetView(record));
});

presets.delete("/:id", requireScope("runs:write"), async (c) => {
  const p = await requirePreset(c);
  await deletePreset(c.env.DB, p.tenant_id, p.preset_id);
  return reply(c, DeletedPreset, { preset_id: p.preset_id, deleted: true });
});

async function requirePreset(c: Context<AppEnv>): Promise<PresetRecord> {
  const p = await getPreset(c.env.DB, tenantOf(c).tenant_id, c.req.param("id")!);
  if (!p) throw new ApiFailure({ code: "not_found", message: `no preset ${c.req.param("id")}; list them with GET /v1/presets` });
  return p;
}
