/**
 * promptfoo tokens: `jt_<12 hex id>_<32 base32>` (the API keys' format, src/tenants/api-key.ts).
 * D1 `judge_tokens` keeps HMAC-SHA-256(EDGEVAL_KEY_PEPPER, token) and the judge it grades with;
 * the clear token exists only in the answer that mints it.
 */
import { newestFirstPage, type PageAfter } from "../storage/newest-first";
import { generateToken, hashKey, parseToken, sameHash } from "../tenants/api-key";

export const TOKEN_PREFIX = "jt";

export interface JudgeTokenRecord {
  token_id: string;
  tenant_id: string;
  judge_id: string;
  name: string;
  token_hash: string;
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
  last_used_at: string | null;
}

export async function mintJudgeToken(
  pepper: string,
  owner: { tenant_id: string; judge_id: string; name: string; expires_at: string | null },
  now: string,
): Promise<{ record: JudgeTokenRecord; token: string }> {
  const { keyId, key } = generateToken(TOKEN_PREFIX);
  const record: JudgeTokenRecord = {
    token_id: keyId,
    ...owner,
    token_hash: await hashKey(key, pepper),
    created_at: now,
    revoked_at: null,
    last_used_at: null,
  };
  return { record, token: key };
}

/** A statement, for the batch that writes the token with its audit entry. */
export function insertJudgeToken(db: D1Database, t: JudgeTokenRecord): D1PreparedStatement {
  return db
    .prepare(
      "INSERT INTO judge_tokens (token_id, tenant_id, judge_id, name, token_hash, created_at, revoked_at, expires_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(t.token_id, t.tenant_id, t.judge_id, t.name, t.token_hash, t.created_at, t.revoked_at, t.expires_at, t.last_used_at);
}

export type TokenCheck =
  | { ok: true; token: JudgeTokenRecord }
  | { ok: false; reason: "malformed" | "unknown" | "revoked" | "other_judge" }
  | { ok: false; reason: "expired"; expired_at: string };

/**
 * The token as sent, for the judge the URL names: one read by token id, then the hash compared in
 * constant time. A token of another judge (even the same tenant's) does not grade with this one.
 */
export async function checkJudgeToken(db: D1Database, pepper: string, sent: string, judgeId: string, nowMs: number): Promise<TokenCheck> {
  const parsed = parseToken(TOKEN_PREFIX, sent);
  if (!parsed) return { ok: false, reason: "malformed" };
  const row = await db.prepare("SELECT * FROM judge_tokens WHERE token_id = ?").bind(parsed.keyId).first<JudgeTokenRecord>();
  if (!row || !sameHash(await hashKey(parsed.key, pepper), row.token_hash)) return { ok: false, reason: "unknown" };
  if (row.revoked_at !== null) return { ok: false, reason: "revoked" };
  if (row.expires_at !== null && Date.parse(row.expires_at) <= nowMs) return { ok: false, reason: "expired", expired_at: row.expires_at };
  if (row.judge_id !== judgeId) return { ok: false, reason: "other_judge" };
  return { ok: true, token: row };
}

/** A page of the judge's tokens, revoked ones included, newest first (src/storage/newest-first.ts). */
export async function listJudgeTokens(
  db: D1Database,
  tenantId: string,
  judgeId: string,
  limit: number,
  after: PageAfter,
): Promise<JudgeTokenRecord[]> {
  const source = { table: "judge_tokens", idColumn: "token_id", owner: { tenant_id: tenantId, judge_id: judgeId } };
  return newestFirstPage<JudgeTokenRecord>(db, source, limit, after);
}

/** How many of the judge's tokens still grade (neither revoked nor expired): what deleting the judge ends. */
export async function liveJudgeTokens(db: D1Database, tenantId: string, judgeId: string, now: string): Promise<number> {
  const row = await db
    .prepare(
      "SELECT COUNT(*) AS n FROM judge_tokens WHERE tenant_id = ? AND judge_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)",
    )
    .bind(tenantId, judgeId, now)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

export async function getJudgeToken(db: D1Database, tenantId: string, judgeId: string, tokenId: string): Promise<JudgeTokenRecord | null> {
  return db
    .prepare("SELECT * FROM judge_tokens WHERE tenant_id = ? AND judge_id = ? AND token_id = ?")
    .bind(tenantId, judgeId, tokenId)
    .first<JudgeTokenRecord>();
}

/**
 * Revoking keeps the row (its listing shows when); a revoked token is refused on its next call.
 * The statement changes a row only if the token was not revoked already (its first time stands).
 */
export function revokeJudgeToken(db: D1Database, t: JudgeTokenRecord, now: string): D1PreparedStatement {
  return db.prepare("UPDATE judge_tokens SET revoked_at = ? WHERE token_id = ? AND revoked_at IS NULL").bind(now, t.token_id);
}

/** Written after the answer, at most once a minute per token (as API keys' last_used_at). */
export async function touchJudgeToken(db: D1Database, t: JudgeTokenRecord, now: Date): Promise<void> {
  if (t.last_used_at !== null && now.getTime() - Date.parse(t.last_used_at) < 60_000) return;
  await db.prepare("UPDATE judge_tokens SET last_used_at = ? WHERE token_id = ?").bind(now.toISOString(), t.token_id).run();
}

export const judgeTokenView = (t: JudgeTokenRecord) => ({
  token_id: t.token_id,
  judge_id: t.judge_id,
  name: t.name,
  created_at: t.created_at,
  revoked_at: t.revoked_at,
  expires_at: t.expires_at,
  last_used_at: t.last_used_at,
});
