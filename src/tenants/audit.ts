/**
 * The per-tenant audit log: one D1 row per security-relevant action. Entries name ids, scopes
 * and names, never a key, a secret value or a request body.
 */
import { z } from "zod";
import type { Principal } from "./authenticate";

export const AUDIT_ACTIONS = [
  "tenant.created",
  "tenant.updated",
  "key.created",
  "key.rotated",
  "key.revoked",
  "run.submitted",
  "run.deleted",
  "run.cancelled",
  "run.rescored",
  "schedule.created",
  "schedule.updated",
  "schedule.deleted",
  "benchmark.deleted",
  "secret.set",
  "secret.deleted",
  "webhook.created",
  "webhook.updated",
  "webhook.deleted",
  "webhook.secret_rotated",
  "trigger.created",
  "trigger.secret_rotated",
  "trigger.deleted",
  "judge.deleted",
  "judge_token.created",
  "judge_token.revoked",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
  tenant_id: string;
  audit_id: string;
  at: string;
  actor: string;
  action: AuditAction;
  target: string;
  detail: Record<string, unknown>;
}

const AuditRow = z.object({
  tenant_id: z.string(),
  audit_id: z.string(),
  at: z.string(),
  actor: z.string(),
  action: z.enum(AUDIT_ACTIONS),
  target: z.string(),
  detail_json: z.string(),
});

export const actorOf = (p: Principal) => (p.keyId ? `key:${p.keyId}` : "deployment_token");
export const OPERATOR = "operator";

/**
 * Entries of the same millisecond sort by audit_id: a per-isolate sequence first (the order this
 * isolate wrote them), then randomness (unique across isolates).
 */
let sequence = 0;
const nextAuditId = () => `${(sequence++).toString(36).padStart(8, "0")}-${crypto.randomUUID().slice(0, 8)}`;

type NewEntry = Omit<AuditEntry, "audit_id" | "at"> & { at?: string };

const entryValues = (e: NewEntry) =>
  [e.tenant_id, nextAuditId(), e.at ?? new Date().toISOString(), e.actor, e.action, e.target, JSON.stringify(e.detail)] as const;

export function auditStatement(db: D1Database, e: NewEntry): D1PreparedStatement {
  return db
    .prepare("INSERT INTO audit_log (tenant_id, audit_id, at, actor, action, target, detail_json) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .bind(...entryValues(e));
}

/**
 * The entry of a change that may find nothing to change (revoking a key revoked already, deleting
 * a secret that is gone), for the batch right after that change's statement: written only if that
 * statement changed a row (SQLite's changes()), so the change and its entry commit or fail
 * together. Written apart, a failed audit insert left the change done and unaudited, and the
 * caller's retry, finding nothing to change, audited nothing either.
 */
export function auditIfChanged(db: D1Database, e: NewEntry): D1PreparedStatement {
  return db
    .prepare(
      "INSERT INTO audit_log (tenant_id, audit_id, at, actor, action, target, detail_json) SELECT ?, ?, ?, ?, ?, ?, ? WHERE changes() > 0",
    )
    .bind(...entryValues(e));
}

/**
 * The entry of a change made outside D1 (a run's cancel, in its coordinator), which D1 cannot batch
 * with it: written unless an entry of the same action and target exists from `since` on (the
 * change's own time). The change is idempotent and answers every repeat, so every repeat writes
 * this: when the first one's entry failed, the repeat's lands, and once one has, no other does.
 * Before 8 Dec only the first cancel wrote it, so a failed insert left the cancel unaudited for good.
 * `since` is set by another clock (the coordinator's) than the entry's `at` (this isolate's): the
 * search starts SINCE_SKEW_MS earlier, so a clock a little behind does not hide the entry written.
 */
export function auditOnce(db: D1Database, e: NewEntry, since: string): D1PreparedStatement {
  const from = new Date(Date.parse(since) - SINCE_SKEW_MS).toISOString();
  return db
    .prepare(
      `INSERT INTO audit_log (tenant_id, audit_id, at, actor, action, target, detail_json) SELECT ?, ?, ?, ?, ?, ?, ?
       WHERE NOT EXISTS (SELECT 1 FROM audit_log WHERE tenant_id = ? AND at >= ? AND action = ? AND target = ?)`,
    )
    .bind(...entryValues(e), e.tenant_id, from, e.action, e.target);
}

/** Far more than two clocks of the platform differ by; a change audited by auditOnce happens once, so the window finds no other. */
const SINCE_SKEW_MS = 60_000;

/** Newest first; the cursor is the last entry's `at|audit_id`. */
export async function listAudit(
  db: D1Database,
  tenantId: string,
  limit: number,
  cursor: { at: string; audit_id: string } | null,
): Promise<AuditEntry[]> {
  const stmt = cursor
    ? db
        .prepare("SELECT * FROM audit_log WHERE tenant_id = ? AND (at, audit_id) < (?, ?) ORDER BY at DESC, audit_id DESC LIMIT ?")
        .bind(tenantId, cursor.at, cursor.audit_id, limit)
    : db.prepare("SELECT * FROM audit_log WHERE tenant_id = ? ORDER BY at DESC, audit_id DESC LIMIT ?").bind(tenantId, limit);
  const { results } = await stmt.all();
  return results.map((r) => {
    const row = AuditRow.parse(r);
    return {
      tenant_id: row.tenant_id,
      audit_id: row.audit_id,
      at: row.at,
      actor: row.actor,
      action: row.action,
      target: row.target,
      detail: JSON.parse(row.detail_json),
    };
  });
}
