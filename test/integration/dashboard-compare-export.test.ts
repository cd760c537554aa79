// Issue 25 item 1, inside workerd: the run page's Compare form and Export buttons. The compare page
// renders exactly what GET /v1/runs/compare answers; an export started from the page is built by
// the API's builder and downloaded with the session cookie only (byte for byte the API's object).
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { addFakeRules, exactTemplate, fakeModel, uniqueModel } from "./helpers";
import { apiAs, createKey, createTenant, submitAs, type TestTenant, waitAs } from "./tenant-helpers";
import { dashboardFetch, dashboardSession, ORIGIN } from "./dashboard-helpers";

const QUESTIONS = Array.from({ length: 10 }, (_, i) => ({
  id: `q${i}`,
  question: `[Q${i}] What is the capital of France?`,
  template: exactTemplate("Paris"),
}));

/** A run of `key`'s tenant whose judge passes exactly the questions in `passing`. */
async function scripted(key: string, name: string, passing: Set<number>): Promise<string> {
  const answerer = uniqueModel("dcmp-ans");
  const judge = uniqueModel("dcmp-judge");
  await addFakeRules([
    { match: { model: answerer }, reply: { text: "It is a city." } },
    ...QUESTIONS.map((_, i) => ({
      match: { model: judge, contains: `[Q${i}]` },
      reply: { json: { answer: passing.has(i) ? "Paris" : "Lyon" } },
    })),
  ]);
  const runId = await submitAs(key, {
    run_name: name,
    benchmark: { name: "dash-compare", questions: QUESTIONS },
    config: { answering_models: [fakeModel("ans", answerer)], parsing_models: [fakeModel("judge", judge)] },
  });
  await waitAs(key, runId);
  return runId;
}

const page = async (path: string, cookie: string) => {
  const res = await dashboardFetch(path, { cookie });
  return { status: res.status, html: await res.text(), location: res.headers.get("location") };
};

let t: TestTenant;
let a: string;
let b: string;
let session: string;
beforeAll(async () => {
  t = await createTenant();
  // A passes all but q6; B fails q0..q5 and passes q6..q9: 6 pass → fail, 1 fail → pass, p = 0.125.
  a = await scripted(t.key, "before", new Set([0, 1, 2, 3, 4, 5, 7, 8, 9]));
  b = await scripted(t.key, "after", new Set([6, 7, 8, 9]));
  session = await dashboardSession(t.key);
}, 60_000);

describe("dashboard compare page", () => {
  it("is linked from the run page and shows the flipped questions and McNemar's p of GET /v1/runs/compare", async () => {
    const run = await page(`/dashboard/runs/${b}`, session);
    expect(run.html).toContain(`action="/dashboard/runs/${b}/compare"`);
    expect(run.html).toContain(`<option value="${a}">before (`);
    expect(run.html).not.toContain(`<option value="${b}">`);

    const cmp = await page(`/dashboard/runs/${b}/compare?a=${a}`, session);
    expect(cmp.status).toBe(200);
    const api = (await (await apiAs(t.key, `/v1/runs/compare?a=${a}&b=${b}&limit=50`)).json()) as any;
    expect(api.questions_with_flips).toBe(7);
    expect(cmp.html).toContain("Questions whose verdict flipped (7)");
    const flips = cmp.html.slice(cmp.html.indexOf('id="compare-flips"'));
    const shown = [...flips.matchAll(/results\?question_id=(q\d)"/g)].map((m) => m[1]);
    expect(shown).toEqual(api.questions.map((q: { question_id: string }) => q.question_id));
    expect(shown).toEqual(["q0", "q1", "q2", "q3", "q4", "q5", "q6"]);
    expect(flips).toContain("ans / judge, replicate 1: pass → fail");
    expect(flips).toContain("ans / judge, replicate 1: fail → pass");
    const pair = api.model_pairs[0];
    expect(pair).toMatchObject({ pass_to_fail: 6, fail_to_pass: 1, significant: false });
    expect(pair.p_value).toBeCloseTo(0.125, 12);
    const row = cmp.html.slice(
      cmp.html.indexOf('id="compare-pairs"'),
      cmp.html.indexOf("</table>", cmp.html.indexOf('id="compare-pairs"')),
    );
    const cells = [...row.matchAll(/<td>([^<]*)<\/td>/g)].map((m) => m[1]);
    expect(cells).toEqual(["ans", "ans", "judge", "10", "0", "90.0 %", "40.0 %", "-50.0 points", "6", "1", "0.125", "no"]);
  });

  it("says when a run is still going: the comparison covers only the results recorded so far", async () => {
    expect((await page(`/dashboard/runs/${b}/compare?a=${a}`, session)).html).not.toContain("still");
    const judge = uniqueModel("dcmp-slow");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "Paris" }, latency_ms: 2500 } }]);
    const going = await submitAs(t.key, {
      run_name: "going",
      benchmark: { name: "dash-compare", questions: QUESTIONS },
      config: {
        answering_models: [{ id: "ans", interface: "manual", manual_answers: Object.fromEntries(QUESTIONS.map((q) => [q.id, "Paris"])) }],
        parsing_models: [fakeModel("judge", judge)],
      },
    });
    const cmp = await page(`/dashboard/runs/${going}/compare?a=${a}`, session);
    expect(cmp.status).toBe(200);
    expect(cmp.html).toMatch(
      /<p id="compare-incomplete"[^>]*>Run B \(going\) is (queued|running): this compares the results recorded so far/,
    );
    await waitAs(t.key, going);
  }, 30_000);

  it("says when nothing pairs (other questions or models) instead of 'No verdict flipped'", async () => {
    const other = await submitAs(t.key, {
      run_name: "elsewhere",
      benchmark: { name: "other-benchmark", questions: [{ id: "z0", question: "Z0?", template: exactTemplate("x") }] },
      config: {
        answering_models: [{ id: "ans", interface: "manual", manual_answers: { z0: "x" } }],
        parsing_models: [fakeModel("judge", uniqueModel("dcmp-z"))],
      },
    });
    await waitAs(t.key, other);
    const cmp = await page(`/dashboard/runs/${other}/compare?a=${a}`, session);
    expect(cmp.status).toBe(200);
    expect(cmp.html).not.toContain("No verdict flipped");
    expect(cmp.html).toContain('id="compare-nothing-paired"');
    expect(cmp.html).toContain("No result of run A pairs with one of run B");
    expect(cmp.html).toContain("10 results only in A, 1 only in B");

    // Paired, but every pair has an error on a side: nothing could flip, which is not "no change".
    const brokenJudge = uniqueModel("dcmp-broken");
    await addFakeRules([{ match: { model: brokenJudge }, reply: { fault: "malformed" } }]);
    const broken = await submitAs(t.key, {
      benchmark: { name: "other-benchmark", questions: [{ id: "z0", question: "Z0?", template: exactTemplate("x") }] },
      config: {
        answering_models: [{ id: "ans", interface: "manual", manual_answers: { z0: "x" } }],
        parsing_models: [fakeModel("judge", brokenJudge)],
      },
    });
    await waitAs(t.key, broken);
    const errored = await page(`/dashboard/runs/${broken}/compare?a=${other}`, session);
    expect(errored.html).toContain('id="compare-pairs"');
    expect(errored.html).toContain("No pair of results was graded pass or fail on both sides");
    expect(errored.html).not.toContain("No verdict flipped");
  });

  it("pages the flipped questions with the API's cursor", async () => {
    const first = await page(`/dashboard/runs/${b}/compare?a=${a}&limit=4`, session);
    const next = /href="(\/dashboard\/runs\/[^"]+compare\?[^"]+)">More flipped questions/.exec(first.html)?.[1]?.replaceAll("&amp;", "&");
    expect(next).toBeDefined();
    const second = await page(next!, session);
    const ids = (html: string) => [...html.matchAll(/results\?question_id=(q\d)"/g)].map((m) => m[1]);
    expect([...ids(first.html), ...ids(second.html)]).toEqual(["q0", "q1", "q2", "q3", "q4", "q5", "q6"]);
    expect(second.html).not.toContain("More flipped questions");
  });

  it("a bad query is a 400 page naming the field; a run of another tenant is a 404 page", async () => {
    const missing = await page(`/dashboard/runs/${b}/compare`, session);
    expect(missing.status).toBe(400);
    expect(missing.html).toContain("query a");
    const other = await createTenant();
    const theirs = await scripted(other.key, "theirs", new Set([1]));
    const foreign = await page(`/dashboard/runs/${b}/compare?a=${theirs}`, session);
    expect(foreign.status).toBe(404);
    expect(foreign.html).not.toContain("theirs");
    // A run that is not there: the page's way on is the run list, not the API's advice.
    const gone = await page(`/dashboard/runs/${theirs}`, session);
    expect(gone.status).toBe(404);
    expect(gone.html).toContain(`no run ${theirs}</p>`);
    expect(gone.html).not.toContain("GET /v1/runs");
    expect(gone.html).toContain(`<a href="/dashboard/runs">See this tenant&#39;s runs</a>`);
  });
});

describe("dashboard export buttons", () => {
  const press = (runId: string, cookie: string, format: string, origin: string | null = ORIGIN) =>
    dashboardFetch(`/dashboard/runs/${runId}/exports`, {
      method: "POST",
      cookie,
      body: new URLSearchParams({ format }),
      headers: origin ? { origin } : {},
    });

  it("builds through the API's builder and downloads with the session cookie, byte for byte the API's object", async () => {
    expect((await page(`/dashboard/runs/${b}`, session)).html).toContain(`action="/dashboard/runs/${b}/exports"`);
    const res = await press(b, session, "karenina");
    expect(res.status).toBe(303);
    const statusPage = res.headers.get("location")!;
    const exportId = new RegExp(`^/dashboard/runs/${b}/exports/([0-9a-f-]{36})$`).exec(statusPage)?.[1];
    expect(exportId).toBeDefined();
    const ready = await vi.waitUntil(
      async () => {
        const p = await page(statusPage, session);
        return p.html.includes('data-status="building"') ? false : p;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(ready.html).toContain('data-status="ready"');
    expect(ready.html).toContain(`href="${statusPage}/download"`);
    expect(ready.html).toContain("ready: 10 results");
    // The size for people, the exact byte count in the title (the API's `bytes`).
    const bytes = ((await (await apiAs(t.key, `/v1/runs/${b}/exports/${exportId}`)).json()) as { bytes: number }).bytes;
    expect(bytes).toBeGreaterThan(1000);
    const exact = `${String(bytes).replace(/\B(?=(\d{3})+(?!\d))/g, ",")} bytes`;
    expect(ready.html).toMatch(new RegExp(`ready: 10 results, <span class="size" title="${exact}">\\d+(\\.\\d+)? (kB|MB)</span>`));
    expect(ready.html).not.toContain(`${bytes} bytes`);

    const download = await dashboardFetch(`${statusPage}/download`, { cookie: session });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toMatch(
      new RegExp(`^attachment; filename="[^"]*_${b.slice(0, 8)}_\\d{8}T\\d{6}Z_${exportId!.slice(0, 8)}\\.json"; filename\\*=`),
    );
    const text = await download.text();
    // The API's download of the same export: the same bytes.
    const viaApi = await apiAs(t.key, `/v1/runs/${b}/exports/${exportId}/download`);
    expect(text).toBe(await viaApi.text());
    expect(JSON.parse(text)).toMatchObject({ format_version: "2.2", metadata: { job_id: b } });
    expect(JSON.parse(text).results).toHaveLength(10);

    // Without the cookie, or after the key is revoked, the download is the sign-in redirect, not the file.
    const anonymous = await dashboardFetch(`${statusPage}/download`);
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get("location")).toBe("/dashboard/sign-in");
  });

  it("the status page's script asks the same URL for JSON", async () => {
    const res = await press(a, session, "csv");
    const statusUrl = res.headers.get("location")!;
    const json = await dashboardFetch(statusUrl, { cookie: session, headers: { accept: "application/json" } });
    expect(json.status).toBe(200);
    expect(await json.json()).toMatchObject({ status: expect.stringMatching(/^(building|ready)$/), results_total: 10 });
  });

  it("refuses a foreign or missing Origin, a read-only key and an unknown format; a revoked key's session downloads nothing", async () => {
    const reader = await createKey(t.key, { scopes: ["runs:read"] });
    const readerSession = await dashboardSession(reader.key);
    // No Export buttons (a reader still sees the run's exports listed, and may download them: below).
    expect((await page(`/dashboard/runs/${b}`, readerSession)).html).not.toContain(`action="/dashboard/runs/${b}/exports"`);
    expect((await press(b, session, "csv", null)).status).toBe(403);
    expect((await press(b, session, "csv", "https://evil.example")).status).toBe(403);
    expect((await press(b, readerSession, "csv")).status).toBe(403);
    const bad = await press(b, session, "xlsx");
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("form format");

    // A reader may download an export that exists; once its key is revoked, it may not.
    const built = await press(b, session, "ndjson");
    const url = `${built.headers.get("location")}/download`;
    await vi.waitUntil(async () => (await dashboardFetch(url, { cookie: readerSession })).status === 200, {
      timeout: 20_000,
      interval: 100,
    });
    expect((await apiAs(t.key, `/v1/keys/${reader.key_id}`, { method: "DELETE" })).status).toBeLessThan(300);
    const revoked = await dashboardFetch(url, { cookie: readerSession });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get("location")).toBe("/dashboard/sign-in");
  });

  it("the run page lists the run's exports, newest first, with their status and download links; the exports page has them all", async () => {
    const c = await scripted(t.key, "exported", new Set([0, 1, 2]));
    expect((await page(`/dashboard/runs/${c}`, session)).html).not.toContain('id="exports"');
    const started: string[] = [];
    // One after the other (each built before the next starts), so their created_at differ.
    for (const format of ["csv", "ndjson"]) {
      const res = await press(c, session, format);
      const id = /\/exports\/([0-9a-f-]{36})$/.exec(res.headers.get("location")!)![1]!;
      started.push(id);
      await vi.waitUntil(async () => ((await (await apiAs(t.key, `/v1/runs/${c}/exports/${id}`)).json()) as any).status === "ready", {
        timeout: 20_000,
        interval: 100,
      });
    }
    const run = (await page(`/dashboard/runs/${c}`, session)).html;
    const listed = [...run.matchAll(/data-export-id="([^"]+)" data-status="([^"]+)"/g)].map((m) => [m[1], m[2]]);
    expect(listed).toEqual([
      [started[1], "ready"],
      [started[0], "ready"],
    ]);
    expect(run).toContain(`href="/dashboard/runs/${c}/exports/${started[0]}/download"`);
    expect(run).toContain("ready: 10 results");
    expect(run).not.toContain("All exports of this run");
    expect(run).toContain("<td>every result</td>");
    // A filtered export (here through the API) says which results it holds, in the list and on its page.
    const filtered = (await (
      await apiAs(t.key, `/v1/runs/${c}/exports`, { method: "POST", json: { format: "csv", verdict: "fail", answering_model: "ans" } })
    ).json()) as { export_id: string };
    expect((await page(`/dashboard/runs/${c}`, session)).html).toContain("<td>answering model ans, verdict fail</td>");
    expect((await page(`/dashboard/runs/${c}/exports/${filtered.export_id}`, session)).html).toContain(
      "Results: answering model ans, verdict fail.",
    );

    // Past the run page's ten, the newest ten there and a link to every one, paged.
    for (let i = 0; i < 9; i++) await press(c, session, "csv");
    const crowded = (await page(`/dashboard/runs/${c}`, session)).html;
    expect([...crowded.matchAll(/data-export-id=/g)]).toHaveLength(10);
    expect(crowded).toContain(`href="/dashboard/runs/${c}/exports">All exports of this run</a>`);
    const all = await page(`/dashboard/runs/${c}/exports`, session);
    expect(all.status).toBe(200);
    const allIds = [...all.html.matchAll(/data-export-id="([^"]+)"/g)].map((m) => m[1]);
    expect(allIds).toHaveLength(12);
    expect(allIds).toContain(filtered.export_id);
    expect(allIds.slice(-2)).toEqual([started[1], started[0]]);
    const bad = await page(`/dashboard/runs/${c}/exports?cursor=nope`, session);
    expect(bad.status).toBe(400);
    expect(bad.html).toContain("query cursor");
  });

  it("a failed export's page says what to do and starts it again, same format and filter, with one button", async () => {
    const made = (await (
      await apiAs(t.key, `/v1/runs/${a}/exports`, { method: "POST", json: { format: "csv", verdict: "pass", question_id: "q1" } })
    ).json()) as { export_id: string };
    await vi.waitUntil(
      async () => ((await (await apiAs(t.key, `/v1/runs/${a}/exports/${made.export_id}`)).json()) as any).status !== "building",
      {
        timeout: 20_000,
        interval: 100,
      },
    );
    // As the builder leaves an export whose steps kept failing.
    await env.DB.prepare("UPDATE exports SET status = 'failed', error = 'kept_failing' WHERE export_id = ?").bind(made.export_id).run();
    const failed = (await page(`/dashboard/runs/${a}/exports/${made.export_id}`, session)).html;
    expect(failed).toContain("failed: Building the file failed several times in a row");
    expect(failed).toContain(`<form id="export-again" method="post" action="/dashboard/runs/${a}/exports">`);

    const again = await dashboardFetch(`/dashboard/runs/${a}/exports`, {
      method: "POST",
      cookie: session,
      headers: { origin: ORIGIN },
      body: new URLSearchParams(
        [...failed.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]+)"\/>/g)]
          .map((m) => [m[1]!, m[2]!])
          .concat([["format", "csv"]]),
      ),
    });
    expect(again.status).toBe(303);
    const id = again.headers.get("location")!.split("/").pop();
    const view = (await (await apiAs(t.key, `/v1/runs/${a}/exports/${id}`)).json()) as any;
    expect(view).toMatchObject({ format: "csv", filter: { verdict: "pass", question_id: "q1" } });
    // A reader sees the words but no button.
    const reader = await createKey(t.key, { scopes: ["runs:read"] });
    expect((await page(`/dashboard/runs/${a}/exports/${made.export_id}`, await dashboardSession(reader.key))).html).not.toContain(
      "export-again",
    );
  });
});
