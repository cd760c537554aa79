/**
 * /v1/schedules (src/schedules/README.md): runs of a stored benchmark with a stored preset (or a config) on a
 * cron in UTC. Creating or changing one plans a run from it at once, so a preset that could never
 * start (an unknown model key origin, a missing secret) is a 400 now, not a silent skip at 3 am.
 * Scopes: runs:write to change, runs:read to look.
 */
import { type Context, Hono } from "hono";
import { prefixedId } from "../lib/ids";
import { scheduledRunBody } from "../schedules/run-body";
import { ListQuery } from "../schemas/api";
import { ScheduleList } from "../schemas/results-out-views";
import { CreateScheduleRequest, UpdateScheduleRequest } from "../schemas/schedules";
import {
  deleteSchedule,
  getSchedule,
  insertSchedule,
  listScheduleRuns,
  listSchedules,
  type ScheduleRecord,
  updateSchedule,
} from "../schedules/schedules-repo";
import { actorOf, type AuditAction, auditIfChanged, auditStatement } from "../tenants/audit";
import { nextUpdatedAt } from "../lib/updated-at";
import { type AppEnv, requireScope, tenantOf } from "./auth";
import { type BodyLimit, readJson, validate, validateQuery } from "./body";
import { decodeCreatedCursor, nextCreatedCursor } from "./cursor";
import { reply } from "./reply";
import type { FieldIssue } from "../schemas/field-issue";
import { ApiFailure, invalidBody } from "./errors";
import { httpHost, submitRun } from "./submit-run";
import { requestOrigin } from "../webhooks/links";

/** A config may carry manual answers for a large benchmark. */
const SCHEDULE_BODY_LIMIT: BodyLimit = {
  bytes: 4_000_000,
  advice: "store large benchmarks with POST /v1/benchmarks and the config with POST /v1/presets",
};
/** Runs shown with a schedule, newest first. */
const RECENT_RUNS = 20;

export const schedules = new Hono<AppEnv>();

schedules.post("/", requireScope("runs:write"), async (c) => {
  const body = validate(CreateScheduleRequest, (await readJson(c, SCHEDULE_BODY_LIMIT)).value);
  const tenantId = tenantOf(c).tenant_id;
  const now = new Date().toISOString();
  const record: ScheduleRecord = {
    tenant_id: tenantId,
    schedule_id: prefixedId("sch_"),
    name: body.name,
    cron: body.cron,
    benchmark_id: body.benchmark_id,
    preset_id: body.preset_id ?? null,
    config: body.config,
    enabled: body.enabled,
    created_at: now,
    updated_at: now,
    // Its runs' webhook events link here (src/webhooks/links.ts): a cron tick has no request of its own.
    api_origin: requestOrigin(c),
  };
  await checkRunBody(c, record);
  // One batch: apart, a failed entry left a live schedule behind a 500, and the retry made a second
  // one that started the same run again at each tick.
  await c.env.DB.batch([
    insertSchedule(c.env.DB, record),
    auditStatement(c.env.DB, entry(c, "schedule.created", record.schedule_id, { cron: record.cron, benchmark_id: record.benchmark_id })),
  ]);
  c.header("Location", `/v1/schedules/${record.schedule_id}`);
  return c.json(view(record), 201);
});

schedules.get("/", requireScope("runs:read"), async (c) => {
  const q = validateQuery(ListQuery, c.req.queries());
  const rows = await listSchedules(c.env.DB, tenantOf(c).tenant_id, q.limit, decodeCreatedCursor(q.cursor));
  return reply(c, ScheduleList, { schedules: rows.map(view), next_cursor: nextCreatedCursor(rows, q.limit, (s) => s.schedule_id) });
});

schedules.get("/:id", requireScope("runs:read"), async (c) => {
  const s = await requireSchedule(c);
  const runs = await listScheduleRuns(c.env.DB, s.tenant_id, s.schedule_id, RECENT_RUNS);
  return c.json({
    ...view(s),
    recent_runs: runs.map((r) => ({
      minute: r.minute,
      run_id: r.run_id,
      skipped: r.error,
      compared_with: r.compared_with,
      compared_at: r.compared_at,
      regression: r.regression === null ? null : r.regression === 1,
      model_pairs: r.comparison_json ? JSON.parse(r.comparison_json) : null,
    })),
  });
});

/** A PATCH redoes its read and write at most this often while other writes to the schedule land in between. */
const PATCH_ATTEMPTS = 5;

schedules.patch("/:id", requireScope("runs:write"), async (c) => {
  let s = await requireSchedule(c);
  const body = validatePatch((await readJson(c, SCHEDULE_BODY_LIMIT)).value);
  let next: ScheduleRecord;
  for (let attempt = 1; ; attempt++) {
    next = { ...s, ...body, updated_at: nextUpdatedAt(Date.now(), s.updated_at), api_origin: requestOrigin(c) };
    if (body.config !== undefined || body.preset_id !== undefined) await checkRunBody(c, next);
    const [updated] = await c.env.DB.batch([
      updateSchedule(c.env.DB, next, s.updated_at),
      auditIfChanged(c.env.DB, entry(c, "schedule.updated", s.schedule_id, { changed: Object.keys(body) })),
    ]);
    if (updated?.meta.changes) break;
    if (attempt === PATCH_ATTEMPTS)
      throw new ApiFailure({ code: "internal", message: `schedule ${s.schedule_id} kept changing while this PATCH ran; send it again` });
    // Another write landed between the read and this one (or the schedule is gone: a 404).
    s = await requireSchedule(c);
  }
  return c.json(view(next));
});

/**
 * Fields a schedule has that a PATCH cannot change, with why: the strict schema alone would call
 * them unknown ("check the spelling") though they are the schedule's own.
 */
const FIXED_FIELDS: Record<string, string> = {
  benchmark_id:
    "a schedule's benchmark cannot be changed: each of its runs is compared with the one before, question by question; create a new schedule for another benchmark",
};

function validatePatch(value: unknown) {
  const isObject = value !== null && typeof value === "object" && !Array.isArray(value);
  const fixed = isObject ? Object.keys(FIXED_FIELDS).filter((k) => Object.hasOwn(value, k)) : [];
  if (fixed.length === 0) return validate(UpdateScheduleRequest, value);
  const issues: FieldIssue[] = fixed.map((k) => ({ path: k, message: FIXED_FIELDS[k]! }));
  const rest = Object.fromEntries(Object.entries(value as object).filter(([k]) => !fixed.includes(k)));
  // The other fields' issues too (every failing field in one answer), unless nothing else was sent.
  if (Object.keys(rest).length > 0) {
    try {
      validate(UpdateScheduleRequest, rest);
    } catch (err) {
      if (!(err instanceof ApiFailure) || err.error.code !== "invalid_body") throw err;
      issues.push(...err.error.issues);
    }
  }
  throw invalidBody(issues);
}

schedules.delete("/:id", requireScope("runs:write"), async (c) => {
  const s = await requireSchedule(c);
  const entryIfDeleted = auditIfChanged(c.env.DB, entry(c, "schedule.deleted", s.schedule_id, {}));
  if (!(await deleteSchedule(c.env.DB, s.tenant_id, s.schedule_id, [entryIfDeleted]))) throw scheduleNotFound(s.schedule_id);
  return c.json({ schedule_id: s.schedule_id, deleted: true });
});

function view(s: ScheduleRecord) {
  return {
    schedule_id: s.schedule_id,
    name: s.name,
    cron: s.cron,
    benchmark_id: s.benchmark_id,
    preset_id: s.preset_id,
    config: s.config,
    enabled: s.enabled,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

async function requireSchedule(c: Context<AppEnv>): Promise<ScheduleRecord> {
  const s = await getSchedule(c.env.DB, tenantOf(c).tenant_id, c.req.param("id")!);
  if (!s) throw scheduleNotFound(c.req.param("id")!);
  return s;
}

/**
 * The schedule's run body passes submitRun's dry run now (benchmark, preset, config, plan, the
 * jobs-per-run limit): what the cron tick will submit, refused with the same 400s as POST /v1/runs.
 */
async function checkRunBody(c: Context<AppEnv>, s: ScheduleRecord): Promise<void> {
  await submitRun(httpHost(c), {
    tenant: tenantOf(c),
    actor: actorOf(c.get("principal")),
    raw: scheduledRunBody(s, { dry_run: true }),
    idempotency: null,
  });
}

/** The audit entry of a change, for the batch that makes it. */
function entry(c: Context<AppEnv>, action: AuditAction, target: string, detail: Record<string, unknown>) {
  return { tenant_id: tenantOf(c).tenant_id, actor: actorOf(c.get("principal")), action, target, detail };
}

const scheduleNotFound = (id: string) =>
  new ApiFailure({ code: "not_found", message: `no schedule ${id}; list them with GET /v1/schedules` });
