// The dashboard's results page filters as GET /v1/runs/:id/results does (src/http/result-filter.ts):
// a model or question id the run does not have is a 400 page naming the field and listing what the
// run has, so a typo in the filter form never reads as "0 results on this page".
import { describe, expect, it } from "vitest";
import { addFakeRules, exactTemplate, fakeModel, uniqueModel } from "./helpers";
import { apiAs, createKey, createTenant, submitAs, waitAs } from "./tenant-helpers";
import { dashboardFetch, dashboardSession, ORIGIN } from "./dashboard-helpers";

describe("dashboard results page", () => {
  it("refuses a filter naming a model or question the run lacks, naming the field and what the run has", async () => {
    const t = await createTenant();
    const judge = uniqueModel("dash-filter");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "x" } } }]);
    const questions = ["q1", "q2"].map((id) => ({ id, question: `${id}?`, template: exactTemplate("x") }));
    const runId = await submitAs(t.key, {
      run_name: "nightly filter run",
      benchmark: { name: "dash-filter", questions },
      config: {
        answering_models: [{ id: "alpha", interface: "manual", manual_answers: { q1: "x", q2: "x" } }],
        parsing_models: [fakeModel("judge", judge)],
      },
    });
    await waitAs(t.key, runId);
    const cookie = await dashboardSession(t.key);
    const results = (query: string) => dashboardFetch(`/dashboard/runs/${runId}/results?${query}`, { cookie });

    const ok = await results("answering_model=alpha&question_id=q1");
    expect(ok.status).toBe(200);
    const page = await ok.text();
    expect(page).toContain("1 result on this page");
    // Titled by the run's name, as the run's own page is.
    expect(page).toContain("<h1>Results of nightly filter run</h1>");

    for (const [query, field, has] of [
      ["answering_model=alpah", "answering_model", '"alpha"'],
      ["parsing_model=jduge", "parsing_model", '"judge"'],
      ["question_id=q9", "question_id", '"q1", "q2"'],
    ] as const) {
      const res = await results(query);
      expect(res.status, query).toBe(400);
      const html = await res.text();
      expect(html).toContain(`query ${field}`);
      expect(html).toContain(`it has ${has.replaceAll('"', "&quot;")}`);
      expect(html).not.toMatch(/results? on this page/);
    }
  });
});

describe("dashboard result page's way back", () => {
  it("keeps the list's filters and page: each result links with them and its 'Back to the results' returns to them", async () => {
    const t = await createTenant();
    const judge = uniqueModel("dash-back");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "x" } } }]);
    const ids = Array.from({ length: 30 }, (_, i) => `q${String(i).padStart(2, "0")}`);
    const runId = await submitAs(t.key, {
      benchmark: { name: "dash-back", questions: ids.map((id) => ({ id, question: `${id}?`, template: exactTemplate("x") })) },
      config: {
        answering_models: [{ id: "alpha", interface: "manual", manual_answers: Object.fromEntries(ids.map((id) => [id, "x"])) }],
        parsing_models: [fakeModel("judge", judge)],
      },
    });
    await waitAs(t.key, runId);
    const cookie = await dashboardSession(t.key);
    const base = `/dashboard/runs/${runId}/results`;
    // The second page of the pass results of alpha: 25 a page, so 5 on it.
    const first = (await (await dashboardFetch(`${base}?verdict=pass&answering_model=alpha`, { cookie })).text()).replaceAll("&amp;", "&");
    const after = /[?&]after=([^"&]+)"/.exec(first)?.[1];
    expect(after).toBeDefined();
    const listQuery = `verdict=pass&answering_model=alpha&after=${after}`;
    /** A query's parameters, in any order. */
    const params = (query: string) => [...new URLSearchParams(query)].sort();
    const second = (await (await dashboardFetch(`${base}?${listQuery}`, { cookie })).text()).replaceAll("&amp;", "&");
    const links = [...second.matchAll(/href="(\/dashboard\/runs\/[^/]+\/results\/[^"?]+)\??([^"]*)"/g)].map((m) => ({
      path: m[1]!,
      query: m[2]!,
    }));
    expect(links).toHaveLength(5);
    for (const l of links) expect(params(l.query)).toEqual(params(listQuery));

    const back = async (url: string) => {
      const html = (await (await dashboardFetch(url, { cookie })).text()).replaceAll("&amp;", "&");
      return /<a href="([^"]*)">Back to the results<\/a>/.exec(html)?.[1];
    };
    const way = (await back(`${links[0]!.path}?${links[0]!.query}`))!;
    expect(way.split("?")[0]).toBe(base);
    expect(params(way.split("?")[1]!)).toEqual(params(listQuery));
    // Without a list behind it (a link pasted alone), the way back is the unfiltered list; a bad query is a 400 page.
    expect(await back(links[0]!.path)).toBe(base);
    const bad = await dashboardFetch(`${links[0]!.path}?verdict=maybe`, { cookie });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("query verdict");
  });
});

describe("dashboard results page's export", () => {
  it("exports the results its filter shows, as the API would with that filter; a reader sees no buttons", async () => {
    const t = await createTenant();
    const judge = uniqueModel("dash-export-these");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "x" } } }]);
    const questions = ["q1", "q2", "q3"].map((id) => ({ id, question: `${id}?`, template: exactTemplate("x") }));
    const runId = await submitAs(t.key, {
      benchmark: { name: "dash-export-these", questions },
      config: {
        answering_models: [{ id: "alpha", interface: "manual", manual_answers: { q1: "x", q2: "x", q3: "x" } }],
        parsing_models: [fakeModel("judge", judge)],
      },
    });
    await waitAs(t.key, runId);
    const cookie = await dashboardSession(t.key);
    const html = await (await dashboardFetch(`/dashboard/runs/${runId}/results?verdict=pass&question_id=q2`, { cookie })).text();
    expect(html).toContain(`<form id="export-these" method="post" action="/dashboard/runs/${runId}/exports">`);
    const hidden = [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]+)"\/>/g)].map((m) => [m[1]!, m[2]!]);
    expect(Object.fromEntries(hidden)).toEqual({ verdict: "pass", question_id: "q2" });

    const res = await dashboardFetch(`/dashboard/runs/${runId}/exports`, {
      method: "POST",
      cookie,
      headers: { origin: ORIGIN },
      body: new URLSearchParams([...hidden, ["format", "ndjson"]]),
    });
    expect(res.status).toBe(303);
    const view = (await (await apiAs(t.key, `/v1/runs/${runId}/exports/${res.headers.get("location")!.split("/").pop()}`)).json()) as any;
    expect(view).toMatchObject({ format: "ndjson", filter: { verdict: "pass", question_id: "q2" }, results_total: 1 });

    const reader = await createKey(t.key, { scopes: ["runs:read"] });
    const readerPage = await (
      await dashboardFetch(`/dashboard/runs/${runId}/results`, { cookie: await dashboardSession(reader.key) })
    ).text();
    expect(readerPage).not.toContain("export-these");
  });
});

describe("dashboard results page's failure group filter", () => {
  it("shows only the results of the group picked, keeps it on the way back and in the export, and refuses a bad group", async () => {
    const t = await createTenant();
    const judge = uniqueModel("dash-fgroup");
    // q1 passes; q2's answer is wrong (group content); q3's judge answers no JSON at all (parsing: group system).
    await addFakeRules([
      { match: { model: judge, contains: "[FG-2]" }, reply: { json: { answer: "y" } } },
      { match: { model: judge, contains: "[FG-3]" }, reply: { text: "no json here" } },
      { match: { model: judge }, reply: { json: { answer: "x" } } },
    ]);
    const questions = [1, 2, 3].map((i) => ({ id: `q${i}`, question: `[FG-${i}] ?`, template: exactTemplate("x") }));
    const runId = await submitAs(t.key, {
      benchmark: { name: "dash-fgroup", questions },
      config: {
        answering_models: [{ id: "alpha", interface: "manual", manual_answers: { q1: "x", q2: "x", q3: "x" } }],
        parsing_models: [fakeModel("judge", judge)],
      },
    });
    await waitAs(t.key, runId);
    const cookie = await dashboardSession(t.key);
    const base = `/dashboard/runs/${runId}/results`;
    const page = async (query: string) => {
      const res = await dashboardFetch(`${base}?${query}`, { cookie });
      return { status: res.status, html: (await res.text()).replaceAll("&amp;", "&") };
    };
    const shown = (html: string) => [...html.matchAll(/href="[^"]*\/results\/[^"?]+\?[^"]*">(q\d)<\/a>/g)].map((m) => m[1]);

    const content = await page("failure_group=content");
    expect(content.status).toBe(200);
    expect(shown(content.html)).toEqual(["q2"]);
    expect(content.html).toContain('<option value="content" selected="">');
    const system = await page("failure_group=system&answering_model=alpha");
    expect(shown(system.html)).toEqual(["q3"]);
    // The API's filter agrees.
    const api = (await (await apiAs(t.key, `/v1/runs/${runId}/results?failure_group=system`)).json()) as any;
    expect(api.results.map((r: any) => r.metadata.question_id)).toEqual(["q3"]);

    // The result's link carries the group, and its way back returns to the filtered list.
    const link = /href="([^"]*\/results\/[^"?]+\?[^"]*)">q2<\/a>/.exec(content.html)![1]!;
    expect(new URLSearchParams(link.split("?")[1]).get("failure_group")).toBe("content");
    const result = (await (await dashboardFetch(link, { cookie })).text()).replaceAll("&amp;", "&");
    expect(/<a href="([^"]*)">Back to the results<\/a>/.exec(result)![1]).toBe(`${base}?failure_group=content`);

    // "Export these results" posts the group with the format, and the export holds that group's results.
    const hidden = [...content.html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]+)"\/>/g)].map((m) => [m[1]!, m[2]!]);
    expect(Object.fromEntries(hidden)).toEqual({ failure_group: "content" });
    const res = await dashboardFetch(`/dashboard/runs/${runId}/exports`, {
      method: "POST",
      cookie,
      headers: { origin: ORIGIN },
      body: new URLSearchParams([...hidden, ["format", "csv"]]),
    });
    expect(res.status).toBe(303);
    const view = (await (await apiAs(t.key, `/v1/runs/${runId}/exports/${res.headers.get("location")!.split("/").pop()}`)).json()) as any;
    expect(view).toMatchObject({ filter: { failure_group: "content" }, results_total: 1 });

    const bad = await page("failure_group=wrong");
    expect(bad.status).toBe(400);
    expect(bad.html).toContain("query failure_group");
  });
});
