/** D1 `stored_judges`: a tenant's compound-judge configs with their promptfoo mapping and deadline. */
import { z } from "zod";
import { prefixedId } from "../lib/ids";
import { PriceOverrides } from "../schemas/prices";
import { JudgeConfig } from "../schemas/judge";
import { PromptfooMapping } from "../schemas/stored-judges";
import { newestFirstPage, type PageAfter } from "../storage/newest-first";

const Json = z.record(z.string(), z.unknown());

/**
 * What a stored judge runs, as it was sent (validated when stored): a judge reads back exactly as
 * written, and `runnable` parses it with the same schemas (their defaults filled) to grade.
 */
export const StoredJudgeSpec = z.object({
  config: Json,
  mapping: Json,
  deadline_ms: z.number().int(),
  prices: Json.optional(),
});
export type StoredJudgeSpec = z.output<typeof StoredJudgeSpec>;

export const runnable = (spec: StoredJudgeSpec) => ({
  config: JudgeConfig.parse(spec.config),
  mapping: PromptfooMapping.parse(spec.mapping),
  deadline_ms: spec.deadline_ms,
  prices: spec.prices === undefined ? undefined : PriceOverrides.parse(spec.prices),
});

export interface StoredJudgeRecord {
  tenant_id: string;
  judge_id: string;
  name: string;
  description: string | null;
  spec: StoredJudgeSpec;
  created_at: string;
  updated_at: string;
}

export const mintJudgeId = () => prefixedId("jdg_");

export async function putStoredJudge(db: D1Database, j: StoredJudgeRecord): Promise<void> {
  await db
    .prepare(
      "INSERT INTO stored_judges (tenant_id, judge_id, name, description, spec_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) " +
        "ON CONFLICT(tenant_id, judge_id) DO UPDATE SET name = excluded.name, description = excluded.description, spec_json = excluded.spec_json, updated_at = excluded.updated_at",
    )
    .bind(j.tenant_id, j.judge_id, j.name, j.description, JSON.stringify(j.spec), j.created_at, j.updated_at)
    .run();
}

export async function getStoredJudge(db: D1Database, tenantId: string, judgeId: string): Promise<StoredJudgeRecord | null> {
  const row = await db.prepare("SELECT * FROM stored_judges WHERE tenant_id = ? AND judge_id = ?").bind(tenantId, judgeId).first<Row>();
  return row ? fromRow(row) : null;
}

/** A page of the tenant's stored judges, newest first (src/storage/newest-first.ts). */
export async function listStoredJudges(db: D1Database, tenantId: string, limit: number, after: PageAfter): Promise<StoredJudgeRecord[]> {
  return (
    await newestFirstPage<Row>(db, { table: "stored_judges", idColumn: "judge_id", owner: { tenant_id: tenantId } }, limit, after)
  ).map(fromRow);
}

/** The judge and its tokens, in one batch: a deleted judge leaves no token that could name it. */
/** Deleting the judge and its tokens: statements for one batch, which the route's audit entry joins. */
export function deleteStoredJudge(db: D1Database, tenantId: string, judgeId: string): D1PreparedStatement[] {
  return [
    db.prepare("DELETE FROM judge_tokens WHERE tenant_id = ? AND judge_id = ?").bind(tenantId, judgeId),
    db.prepare("DELETE FROM stored_judges WHERE tenant_id = ? AND judge_id = ?").bind(tenantId, judgeId),
  ];
}

export const promptfooPath = (judgeId: string) => `/v1/judges/${judgeId}/promptfoo`;

export const storedJudgeView = (j: StoredJudgeRecord) => ({
  judge_id: j.judge_id,
  name: j.name,
  description: j.description,
  // As sent, and checked against these schemas when stored.
  config: j.spec.config as z.input<typeof JudgeConfig>,
  mapping: j.spec.mapping as z.input<typeof PromptfooMapping>,
  deadline_ms: j.spec.deadline_ms,
  ...(j.spec.prices ? { prices: j.spec.prices as z.input<typeof PriceOverrides> } : {}),
  promptfoo_url: promptfooPath(j.judge_id),
  created_at: j.created_at,
  updated_at: j.updated_at,
});

interface Row {
  tenant_id: string;
  judge_id: string;
  name: string;
  description: string | null;
  spec_json: string;
  created_at: string;
  updated_at: string;
}

const fromRow = (r: Row): StoredJudgeRecord => ({
  tenant_id: r.tenant_id,
  judge_id: r.judge_id,
  name: r.name,
  description: r.description,
  spec: StoredJudgeSpec.parse(JSON.parse(r.spec_json)),
  created_at: r.created_at,
  updated_at: r.updated_at,
});
