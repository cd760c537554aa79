/** D1 `presets`: a tenant's stored verification configs. */
import { z } from "zod";
import { prefixedId } from "../lib/ids";
import { newestFirstPage, type PageAfter } from "../storage/newest-first";

export interface PresetRecord {
  tenant_id: string;
  preset_id: string;
  name: string;
  description: string | null;
  config: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export const mintPresetId = () => prefixedId("pre_");

export async function putPreset(db: D1Database, p: PresetRecord): Promise<void> {
  await db
    .prepare(
      "INSERT INTO presets (tenant_id, preset_id, name, description, config_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) " +
        "ON CONFLICT(tenant_id, preset_id) DO UPDATE SET name = excluded.name, description = excluded.description, config_json = excluded.config_json, updated_at = excluded.updated_at",
    )
    .bind(p.tenant_id, p.preset_id, p.name, p.description, JSON.stringify(p.config), p.created_at, p.updated_at)
    .run();
}

export async function getPreset(db: D1Database, tenantId: string, presetId: string): Promise<PresetRecord | null> {
  const row = await db.prepare("SELECT * FROM presets WHERE tenant_id = ? AND preset_id = ?").bind(tenantId, presetId).first<Row>();
  return row ? fromRow(row) : null;
}

/** A page of the tenant's presets, newest first (src/storage/newest-first.ts). */
export async function listPresets(db: D1Database, tenantId: string, limit: number, after: PageAfter): Promise<PresetRecord[]> {
  return (await newestFirstPage<Row>(db, { table: "presets", idColumn: "preset_id", owner: { tenant_id: tenantId } }, limit, after)).map(
    fromRow,
  );
}

export async function deletePreset(db: D1Database, tenantId: string, presetId: string): Promise<void> {
  await db.prepare("DELETE FROM presets WHERE tenant_id = ? AND preset_id = ?").bind(tenantId, presetId).run();
}

export const presetView = (p: PresetRecord) => ({
  preset_id: p.preset_id,
  name: p.name,
  description: p.description,
  config: p.config,
  created_at: p.created_at,
  updated_at: p.updated_at,
});

interface Row {
  tenant_id: string;
  preset_id: string;
  name: string;
  description: string | null;
  config_json: string;
  created_at: string;
  updated_at: string;
}

const Config = z.record(z.string(), z.unknown());
const fromRow = (r: Row): PresetRecord => ({ ...r, config: Config.parse(JSON.parse(r.config_json)) });
