/**
 * /dashboard: the signed-in pages (runs, a run with live progress from its event stream, its results filtered and
 * paged, one result with its trace), sign-in and sign-out. Outside /v1: HTML for people, not API.
 */
import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { type AppEnv, requireScope, tenantOf } from "../http/auth";
import { requireRun, requireRunWithChildren, runView } from "../http/runs";
import { runEvents } from "../http/run-events";
import { cancelRun } from "../http/run-cancel";
import { questionResultsStored, startRescore } from "../http/rescore";
import { resultFilter } from "../http/result-filter";
import { fieldIssues } from "../http/body";
import { WIRE_PARSE } from "../lib/wire-issues";
import { requireSpec } from "../storage/spec-store";
import { compareRuns } from "../http/compare";
import { exportDownload, requireExport, startExport } from "../http/exports";
import { listRunExports } from "../exports/exports-repo";
import { decodeCreatedCursor, nextCreatedCursor } from "../http/cursor";
import { CompareQuery, CreateExportRequest, RunListQuery } from "../schemas/api";
import { ApiFailure } from "../http/errors";
import { ERROR_STATUS, type ErrorCode } from "../schemas/api-error";
import { FAILURE_GROUPS, type VerificationResultInput } from "../schemas/result";
import { getStoredResult, pageResultRows, questionModelCounts, type ResultListRow } from "../storage/results-repo";
import { fullResultJson } from "../storage/result-store";
import { getRun, listRuns, type RunRecord } from "../storage/runs-repo";
import { EXPORT_SCRIPT, ICON_SVG, PROGRESS_SCRIPT, STYLESHEET } from "./assets";
import { clearSessionCookie, DASHBOARD, dashboardHeaders, requireSession, sameOriginPosts, setSessionCookie } from "./guard";
import { ErrorPage, isTerminal, ResultPage, ResultsPage, RunPage, SignInPage } from "./pages";
import { RunsPage } from "./runs-page";
import { signIn } from "./session";
import { ComparePage, ExportPage, type JudgeLink } from "./run-tools";
import { ExportsPage } from "./export-list";
import { RescoreFormFields, rescoreBodyFromForm, rescoreRefusal } from "./rescore-form";

const PAGE_SIZE = 25;
/** Other runs the run page offers to compare with (newest first). */
const COMPARE_CHOICES = 50;
/** Flipped questions per compare page. */
const COMPARE_PAGE = 50;
/** Exports the run page lists (newest first); the run's exports page has them all. */
const RUN_PAGE_EXPORTS = 10;
/** The heatmap's cells at most (question × answering model): a page, not the whole of a huge run. */
const HEATMAP_CELLS = 2_000;

/** The results page's query: one schema, so a bad filter is a 400 naming the field. */
export const ResultsQuery = z.strictObject({
  verdict: z.enum(["", "pass", "fail", "error", "no_verdict"]).optional(),
  answering_model: z.string().max(200).optional(),
  parsing_model: z.string().max(200).optional(),
  question_id: z.string().max(500).optional(),
  failure_group: z.enum(["", ...FAILURE_GROUPS]).optional(),
  after: z.string().max(200).optional(),
});

const ExportsQuery = z.strictObject({ cursor: z.string().min(1).max(512).optional() });

/** The runs page: GET /v1/runs's filters (an empty field, as the form sends it, is no filter) and its own cursor. */
const RunsQuery = RunListQuery.pick({ status: true, benchmark_name: true }).extend({
  after: z.string().regex(/^[^|]+\|[^|]+$/, "not a cursor this page gave").optional(),
});

export const dashboard = new Hono<AppEnv>();
dashboard.use(dashboardHeaders);
dashboard.use(sameOriginPosts);

dashboard.get("/assets/app.css", (c) => c.body(STYLESHEET, 200, { "content-type": "text/css; charset=utf-8" }));
dashboard.get("/assets/icon.svg", (c) => c.body(ICON_SVG, 200, { "content-type": "image/svg+xml" }));
dashboard.get("/assets/export.js", (c) => c.body(EXPORT_SCRIPT, 200, { "content-type": "text/javascript; charset=utf-8" }));
dashboard.get("/assets/progress.js", (c) => c.body(PROGRESS_SCRIPT, 200, { "content-type": "text/javascript; charset=utf-8" }));

dashboard.get("/", (c) => c.redirect(`${DASHBOARD}/runs`, 303));
dashboard.get("/sign-in", (c) => c.html(<SignInPage />));
dashboard.post("/sign-in", async (c) => {
  const form = await c.req.parseBody();
  const key = typeof form.key === "string" ? form.key.trim() : "";
  const outcome = key
    ? await signIn(c.env, key, new Date())
    : { ok: false as const, reason: "paste an API key into the field key", status: 401 as const };
  if (!outcome.ok) return c.html(<SignInPage error={outcome.reason} />, outcome.status);
  setSessionCookie(c, outcome.cookie);
  return c.redirect(`${DASHBOARD}/runs`, 303);
});
dashboard.post("/sign-out", (c) => {
  clearSessionCookie(c);
  return c.redirect(`${DASHBOARD}/sign-in`, 303);
});

const signedIn = new Hono<AppEnv>();
signedIn.use(requireSession);
// Every signed-in page reads runs: a key without runs:read signs in but sees a 403 page.
signedIn.use(requireScope("runs:read"));

signedIn.get("/runs", async (c) => {
  const sent = Object.fromEntries(Object.entries(c.req.query()).filter(([, v]) => v !== ""));
  const q = parsed(RunsQuery, sent);
  if (!q.ok) return c.html(<ErrorPage tenant={tenantOf(c).tenant_id} title="Bad request" message={q.message} />, 400);
  const [created_at, run_id] = q.data.after?.split("|") ?? [];
  const cursor = created_at && run_id ? { created_at, run_id } : null;
  const runs = await listRuns(c.env.DB, tenantOf(c).tenant_id, PAGE_SIZE, cursor, { statuses: q.data.status, benchmark_name: q.data.benchmark_name });
  const last = runs.length === PAGE_SIZE ? runs[runs.length - 1] : undefined;
  const filter = { status: q.data.status?.join(","), benchmark_name: q.data.benchmark_name };
  return c.html(<RunsPage tenant={tenantOf(c).tenant_id} runs={runs} next={last ? `${last.created_at}|${last.run_id}` : null} filter={filter} />);
});

signedIn.get("/runs/:id", async (c) => {
  const { run, children } = await requireRunWithChildren(c, c.req.param("id"));
  const [view, cells, recent, exports] = await Promise.all([
    runView(c, run, children),
    questionModelCounts(c.env.DB, run, HEATMAP_CELLS),
    listRuns(c.env.DB, run.tenant_id, COMPARE_CHOICES + 1, null),
    listRunExports(c.env.DB, run, RUN_PAGE_EXPORTS + 1, null),
  ]);
  const heat = { cells, truncated: cells.length === HEATMAP_CELLS };
  let others = recent.filter((r) => r.run_id !== run.run_id).slice(0, COMPARE_CHOICES);
  // A re-scored run's parent is offered (and picked) even when it is older than the newest runs.
  const parentId = view.lineage.parent_run_id;
  if (parentId && !others.some((r) => r.run_id === parentId)) {
    const parent = await getRun(c.env.DB, run.tenant_id, parentId);
    if (parent) others = [parent, ...others];
  }
  const parentGone = parentId !== null && !others.some((r) => r.run_id === parentId);
  const canWrite = c.get("principal").scopes.has("runs:write");
  // The Re-score form copies one of the run's judges: its spec, read only when the form is shown.
  const spec = canWrite && isTerminal(view.status) ? await requireSpec(c.env.BLOBS, run) : null;
  const recorded = spec ? await questionResultsStored(c.env.DB, run, spec) : null;
  return c.html(
    <RunPage
      tenant={tenantOf(c).tenant_id}
      view={view}
      heat={heat}
      canWrite={canWrite}
      rescore={spec && recorded ? { spec, scenarios: (spec.scenarios ?? []).map((sc) => sc.name), recorded } : null}
      others={others}
      parentGone={parentGone}
      exports={{ rows: exports.slice(0, RUN_PAGE_EXPORTS), more: exports.length > RUN_PAGE_EXPORTS }}
    />,
  );
});

/**
 * The comparison of this run (B) with run `a`: exactly what GET /v1/runs/compare answers
 * (src/http/compare.ts), one page of flipped questions, as a page.
 */
signedIn.get("/runs/:id/compare", async (c) => {
  const b = await requireRun(c, c.req.param("id"));
  const q = parsed(CompareQuery.omit({ b: true }).extend({ limit: CompareQuery.shape.limit.default(COMPARE_PAGE) }), c.req.query());
  if (!q.ok) return c.html(<ErrorPage tenant={b.tenant_id} title="Bad request" message={q.message} />, 400);
  const cmp = await compareRuns(c, { ...q.data, b: b.run_id });
  const a = await requireRun(c, q.data.a);
  const kept = stringEntries({
    a: q.data.a,
    a_model: q.data.a_model,
    b_model: q.data.b_model,
    a_parsing_model: q.data.a_parsing_model,
    b_parsing_model: q.data.b_parsing_model,
  });
  const base = `${DASHBOARD}/runs/${b.run_id}/compare`;
  const nextUrl = cmp.next_cursor ? `${base}?${new URLSearchParams({ ...kept, cursor: cmp.next_cursor })}` : null;
  // B's judges that A lacks (a re-score's new ones) pair with nothing unless named: offer them against A's.
  let judgeLinks: JudgeLink[] = [];
  if (cmp.unmatched.only_in_b > 0 && !q.data.a_parsing_model && !q.data.b_parsing_model) {
    const [aJudges, bJudges] = [await judgeIds(c.env.BLOBS, a), await judgeIds(c.env.BLOBS, b)];
    judgeLinks = bJudges
      .filter((j) => !aJudges.includes(j))
      .flatMap((bj) => aJudges.map((aj) => ({ a: aj, b: bj, url: `${base}?${new URLSearchParams({ ...kept, a_parsing_model: aj, b_parsing_model: bj })}` })));
  }
  return c.html(<ComparePage tenant={b.tenant_id} cmp={cmp} runs={{ a, b }} nextUrl={nextUrl} judgeLinks={judgeLinks} />);
});

/**
 * The run page's Export buttons: the same builder as POST /v1/runs/:id/exports (src/http/exports.ts),
 * through the Origin check, then the export's status page.
 */
signedIn.post("/runs/:id/exports", requireScope("runs:write"), async (c) => {
  const run = await requireRun(c, c.req.param("id"));
  // The format, and the result filters a failed export's "Start this export again" carries: every field
  // sent is read (an unknown one is a 400 page), none dropped; an empty one means no filter.
  const form = await c.req.parseBody();
  const body = parsed(CreateExportRequest, Object.fromEntries(Object.entries(form).filter(([, v]) => v !== "")));
  if (!body.ok) return c.html(<ErrorPage tenant={run.tenant_id} title="Bad request" message={body.message.replaceAll("query ", "form ")} />, 400);
  const e = await startExport(c, run, body.data);
  return c.redirect(`${DASHBOARD}/runs/${run.run_id}/exports/${e.export_id}`, 303);
});

/** All of the run's exports, newest first, a page at a time (GET /v1/runs/:id/exports's rows and cursor). */
signedIn.get("/runs/:id/exports", async (c) => {
  const run = await requireRun(c, c.req.param("id"));
  const q = parsed(ExportsQuery, c.req.query());
  if (!q.ok) return c.html(<ErrorPage tenant={run.tenant_id} title="Bad request" message={q.message} />, 400);
  const rows = await listRunExports(c.env.DB, run, PAGE_SIZE, decodeCreatedCursor(q.data.cursor));
  const next = nextCreatedCursor(rows, PAGE_SIZE, (e) => e.export_id);
  return c.html(<ExportsPage tenant={run.tenant_id} run={run} exports={rows} next={next} first={!q.data.cursor} />);
});

/** An export's status page; its script asks the same URL for JSON while the export builds. */
signedIn.get("/runs/:id/exports/:export_id", async (c) => {
  const run = await requireRun(c, c.req.param("id"));
  const e = await requireExport(c.env.DB, run, c.req.param("export_id"));
  if ((c.req.header("accept") ?? "").includes("application/json")) return c.json({ status: e.status, results_done: e.results_done, results_total: e.results_total });
  return c.html(<ExportPage tenant={run.tenant_id} run={run} e={e} canWrite={c.get("principal").scopes.has("runs:write")} />);
});

/** The finished export, streamed as GET /v1/runs/:id/exports/:export_id/download does, for the session's tenant only. */
signedIn.get("/runs/:id/exports/:export_id/download", async (c) => {
  const run = await requireRun(c, c.req.param("id"));
  return exportDownload(c.env, run, await requireExport(c.env.DB, run, c.req.param("export_id")));
});

/**
 * The run page's Re-score form (a POST through the Origin check): its fields become the body of
 * POST /v1/runs/:id/rescore and start the child as the API does (startRescore: quotas, audit), then
 * the child's page. A refusal is a 400 page naming the form's fields; a run still going a 409 page.
 */
signedIn.post("/runs/:id/rescore", requireScope("runs:write"), async (c) => {
  const run = await requireRun(c, c.req.param("id"));
  const bad = (message: string) => c.html(<ErrorPage tenant={run.tenant_id} title="Bad request" message={message} />, 400);
  const form = parsed(RescoreFormFields, await c.req.parseBody());
  if (!form.ok) return bad(form.message.replaceAll("query ", "form "));
  const built = rescoreBodyFromForm(form.data, await requireSpec(c.env.BLOBS, run));
  if (!built.ok) return bad(rescoreRefusal(built.issues));
  try {
    const child = await startRescore(c, run, built.body);
    return c.redirect(`${DASHBOARD}/runs/${child.run_id}`, 303);
  } catch (err) {
    if (err instanceof ApiFailure && err.error.code === "invalid_body") return bad(rescoreRefusal(err.error.issues ?? []));
    throw err;
  }
});

/**
 * The run page's Cancel button (a form POST: the Origin check of sameOriginPosts applies), as
 * POST /v1/runs/:id/cancel does it (src/http/run-cancel.ts, audited once). Back to the run page;
 * a run that had already ended is a 409 page saying how it ended.
 */
signedIn.post("/runs/:id/cancel", requireScope("runs:write"), async (c) => {
  const run = await requireRun(c, c.req.param("id"));
  await cancelRun(c, run);
  return c.redirect(`${DASHBOARD}/runs/${run.run_id}`, 303);
});

/**
 * The run page's live progress: GET /v1/runs/:id/events's stream, here under /dashboard so the
 * session cookie (Path=/dashboard) authenticates the page's EventSource, same origin (connect-src 'self').
 */
signedIn.get("/runs/:id/events", async (c) => runEvents(c, await requireRun(c, c.req.param("id"))));

signedIn.get("/runs/:id/results", async (c) => {
  const run = await requireRun(c, c.req.param("id"));
  const q = parsed(ResultsQuery, c.req.query());
  if (!q.ok) return c.html(<ErrorPage tenant={run.tenant_id} title="Bad request" message={q.message} />, 400);
  // Checked against the run as the API's filter is: an id it lacks is a 400 page listing what it has, not an empty table.
  const filter = await resultFilter(
    {
      verdict: q.data.verdict || undefined,
      answering_model: q.data.answering_model || undefined,
      parsing_model: q.data.parsing_model || undefined,
      question_id: q.data.question_id || undefined,
      failure_group: q.data.failure_group || undefined,
    },
    () => requireSpec(c.env.BLOBS, run),
  );
  const columns = "result_id, question_id, answering_model, parsing_model, replicate, verdict, failure_category";
  const rows = await pageResultRows<ResultListRow>(c.env.DB, columns, run, { limit: PAGE_SIZE, after: q.data.after ?? null }, filter);
  const last = rows.length === PAGE_SIZE ? rows[rows.length - 1] : undefined;
  return c.html(
    <ResultsPage
      tenant={run.tenant_id}
      runId={run.run_id}
      runName={run.run_name}
      filter={filter}
      failureGroup={q.data.failure_group || undefined}
      rows={rows}
      next={last?.result_id ?? null}
      after={q.data.after ?? null}
      // D1's status, no coordinator read: a run that has just ended may lack the buttons until a reload.
      canExport={c.get("principal").scopes.has("runs:write") && isTerminal(run.status)}
    />,
  );
});

/**
 * One result. Its query is the results list's it was opened from (filters, page: ResultsQuery), kept
 * only for the page's way back to that list, so "Back to the results" returns where the user was.
 */
signedIn.get("/runs/:id/results/:result_id", async (c) => {
  const run = await requireRun(c, c.req.param("id"));
  const q = parsed(ResultsQuery, c.req.query());
  if (!q.ok) return c.html(<ErrorPage tenant={run.tenant_id} title="Bad request" message={q.message} />, 400);
  const listQuery = new URLSearchParams(Object.entries(q.data).filter((e): e is [string, string] => typeof e[1] === "string" && e[1] !== "")).toString();
  const resultId = c.req.param("result_id");
  const json = await fullResultJson(c.env.BLOBS, await getStoredResult(c.env.DB, run.tenant_id, run.run_id, resultId));
  if (json === null) throw new ApiFailure({ code: "not_found", message: `no result ${resultId} in run ${run.run_id}` });
  return c.html(
    <ResultPage tenant={run.tenant_id} runId={run.run_id} resultId={resultId} result={JSON.parse(json) as VerificationResultInput} listQuery={listQuery} />,
  );
});

/** The API's advice to list runs with GET /v1/runs (requireRun's 404) is for API callers; the page links the run list instead. */
const forPeople = (message: string) => message.replace(/; list runs with GET \/v1\/runs$/, "");

const ERROR_TITLES: Record<number, string> = { 400: "Bad request", 403: "Forbidden", 404: "Not found", 409: "Conflict" };

/** A failure inside the signed-in pages is a page, not the API's JSON error. */
signedIn.onError((err, c) => {
  const code = err instanceof ApiFailure ? err.error.code : "internal";
  const status = (err instanceof ApiFailure ? ERROR_STATUS[code as ErrorCode] : 500) as ContentfulStatusCode;
  const message = err instanceof ApiFailure ? forPeople(err.error.message) : "internal error; reload, and report it if it persists";
  // A run or result that is not there (a stale link, another tenant's id): the way on is the run list.
  const way = status === 404 ? { href: `${DASHBOARD}/runs`, text: "See this tenant's runs" } : undefined;
  return c.html(<ErrorPage tenant={tenantOf(c).tenant_id} title={ERROR_TITLES[status] ?? "Error"} message={message} way={way} />, status);
});

dashboard.route("/", signedIn);

const judgeIds = async (blobs: R2Bucket, run: RunRecord) => (await requireSpec(blobs, run)).parsing_models.map((m) => m.id);

const stringEntries = (o: Record<string, string | undefined>) => Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => e[1] !== undefined));

function parsed<T extends z.ZodType>(schema: T, input: unknown): { ok: true; data: z.output<T> } | { ok: false; message: string } {
  // Worded as the API words a bad field (src/lib/wire-issues.ts): what was expected and what came, an unknown field by name.
  const r = schema.safeParse(input, WIRE_PARSE);
  if (r.success) return { ok: true, data: r.data };
  return { ok: false, message: fieldIssues(r.error.issues).map((i) => `query ${i.path}: ${i.message}`).join("; ") };
}
