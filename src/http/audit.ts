/** /v1/audit: the tenant's audit log, newest first (scope keys:admin). */
import { Hono } from "hono";
import { ListQuery } from "../schemas/api";
import { listAudit } from "../tenants/audit";
import { type AppEnv, requireScope, tenantOf } from "./auth";
import { validateQuery } from "./body";
import { decodeCursor, encodeCursor } from "./cursor";
import { reply } from "./reply";
import { AuditPage } from "../schemas/tenant-views";

export const audit = new Hono<AppEnv>();

audit.get("/", requireScope("keys:admin"), async (c) => {
  const q = validateQuery(ListQuery, c.req.queries());
  const cursor = q.cursor ? decodeCursor(q.cursor, ["at", "audit_id"]) : null;
  const rows = await listAudit(c.env.DB, tenantOf(c).tenant_id, q.limit, cursor && { at: cursor[0]!, audit_id: cursor[1]! });
  const last = rows.length === q.limit ? rows[rows.length - 1] : undefined;
  return reply(c, AuditPage, {
    entries: rows.map(({ tenant_id: _t, ...e }) => e),
    next_cursor: last ? encodeCursor([last.at, last.audit_id]) : null,
  });
});
