// Issue 25: the dashboard in a real browser (Debian's Chromium through playwright-core) against
// `npm run dev`: sign in with an API key, watch a run progress to completion without reloading
// (the run's event stream through an EventSource, with cost so far and ETA),
// filter its results, open a result and see its trace, open a deep-judgment result and see the
// judge's excerpt marked in the answer, sign out. A page that shows an error, logs
// a console error (a CSP violation is one) or whose progress never moves fails the test.
// Screenshots go to test-output/dashboard/.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureChromium } from "./browser/chromium";
import { createTenantKey, noErrorShown, SHOTS, watchedPage } from "./browser/dashboard-pages";
import { type DevServer, ROOT, startDev } from "./dev-server";

/** The deep-judgment run's answer and the excerpt the fake judge quotes from it. */
const DJ_MARKER = "DJ-BROWSER";
const DJ_EXCERPT = "Venetoclax directly inhibits BCL-2";
/** Every fake reply waits this long, so the run is still going when its page opens. */
const REPLY_LATENCY_MS = 2000;

let dev: DevServer;
let browser: Browser;
let tmp: string;

beforeAll(async () => {
  const executablePath = ensureChromium();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "edgeval-dashboard-"));
  const script = JSON.parse(fs.readFileSync(path.join(ROOT, "examples/basic/fake-script.json"), "utf8"));
  for (const rule of script.rules) rule.reply.latency_ms = REPLY_LATENCY_MS;
  // A deep-judgment run's judge calls, answered at once: the excerpt to mark, its reasoning, the parse.
  script.rules.unshift(
    { match: { contains: "expert excerpt extractor" }, reply: { json: { answer: [{ text: DJ_EXCERPT, confidence: "high" }] } } },
    { match: { contains: "expert reasoning generator" }, reply: { json: { answer: "The excerpt names BCL-2." } } },
    { match: { contains: DJ_MARKER }, reply: { json: { answer: "BCL-2" } } },
  );
  const slowScript = path.join(tmp, "slow-fake-script.json");
  fs.writeFileSync(slowScript, JSON.stringify(script));
  fs.mkdirSync(SHOTS, { recursive: true });
  [dev, browser] = await Promise.all([
    startDev(["--fake-script", slowScript]),
    chromium.launch({ executablePath, args: ["--no-sandbox"] }),
  ]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("dashboard in Chromium", () => {
  it("signs in, watches a run complete live, filters results, opens a result's trace, signs out", async () => {
    const key = await createTenantKey(dev.url);
    const { page, problems } = await watchedPage(browser);
    const requested: string[] = [];
    page.on("request", (r) => requested.push(r.url()));

    // Signed out, every page goes to the sign-in page.
    await page.goto(`${dev.url}/dashboard/runs`);
    expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
    await page.getByLabel("API key").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/dashboard\/runs$/);
    await noErrorShown(page, "1-runs-empty");
    const cookie = (await page.context().cookies()).find((c) => c.name === "edgeval_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict" });
    expect(cookie!.value).toMatch(new RegExp(`^${key.slice(3, 15)}\\.`));
    expect(cookie!.value).not.toContain(key.slice(16));

    // A run submitted through the API, watched on its page.
    const submitted = await fetch(`${dev.url}/v1/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      // examples/basic pointed at this server's fake, as npm run dev wrote it.
      body: fs.readFileSync(path.join(ROOT, `.wrangler/dev/port-${dev.port}/example-run.json`), "utf8"),
    });
    expect(submitted.status).toBe(202);
    const { run_id } = (await submitted.json()) as { run_id: string };
    await page.goto(`${dev.url}/dashboard/runs`);
    await page.locator(`a[href="/dashboard/runs/${run_id}"]`).click();
    await page.waitForURL(new RegExp(`/dashboard/runs/${run_id}$`));
    const progress = page.locator("#progress");
    const first = { status: await progress.getAttribute("data-status"), text: await page.locator("#progress-text").textContent() };
    expect(first.status, "the run page opened before the run ended, so the test sees it move").toMatch(/^(queued|running)$/);
    await noErrorShown(page, "2-run-in-progress");
    // A marker on this document: if the page reloaded, it would be gone.
    // (Strings, not functions: they run in the page, and this project compiles without the DOM types.)
    await page.evaluate("window.__sameDocument = true");
    // The ETA the stream's progress carries, seen while the run is going.
    const etas = new Set<string>();
    await expect
      .poll(
        async () => {
          etas.add((await page.locator("#progress-eta").textContent()) ?? "");
          return progress.getAttribute("data-status");
        },
        { timeout: 90_000, interval: 250 },
      )
      .toBe("completed");
    expect(await page.evaluate("window.__sameDocument")).toBe(true);
    // Live progress came from the run's event stream (one EventSource), not from polling.
    expect(requested.filter((u) => u.endsWith(`/dashboard/runs/${run_id}/events`)).length).toBeGreaterThan(0);
    expect(requested.filter((u) => u.endsWith("/progress"))).toEqual([]);
    expect(
      [...etas].some((e) => /^\d+(\.\d)? (s|min|h)$/.test(e)),
      `ETAs seen: ${[...etas].join(" | ")}`,
    ).toBe(true);
    expect(await page.locator("#progress-eta").textContent()).toBe("none left");
    // The figures below were drawn while it went: the page says a reload shows the final ones, and links it.
    await page.locator("#run-ended").waitFor({ state: "visible", timeout: 5_000 });
    expect(await page.locator("#run-ended a").getAttribute("href")).toBe(`/dashboard/runs/${run_id}`);
    // The example's fake models have no price: the cost is unknown, as GET /v1/runs/:id and the
    // server-drawn page say, never "$0.0000".
    expect(await page.locator("#progress-cost").textContent()).toBe("not priced");
    const last = await page.locator("#progress-text").textContent();
    expect(last).not.toBe(first.text);
    const [done, total] = last!
      .match(/(\d+) of (\d+)/)!
      .slice(1)
      .map(Number);
    expect(done).toBe(total);
    expect(total).toBeGreaterThan(0);
    await noErrorShown(page, "3-run-completed");

    // Results, filtered to failures of one model.
    await page.getByRole("link", { name: "Results" }).click();
    // Count on the results page, not on the run page the click is leaving (a race under load).
    await page.waitForURL(new RegExp(`/dashboard/runs/${run_id}/results$`));
    const allRows = await page.locator("tbody tr").count();
    expect(allRows).toBeGreaterThan(0);
    await page.getByLabel("Verdict").selectOption("fail");
    await page.getByLabel("Answering model").fill("beta");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/verdict=fail/);
    const rows = page.locator("tbody tr");
    const n = await rows.count();
    expect(n).toBeGreaterThan(0);
    for (let i = 0; i < n; i++) {
      const cells = await rows.nth(i).locator("td").allTextContents();
      expect(cells[4]).toBe("fail");
      expect(cells[1]).toBe("beta");
    }
    await noErrorShown(page, "4-results-filtered");

    // One result: its answer and trace.
    const question = (await rows.first().locator("td").first().textContent())!;
    await rows.first().getByRole("link").click();
    // The result's address carries the list's filters, for its way back.
    await page.waitForURL(/\/results\/[^/?]+\?.*verdict=fail/);
    await expect.poll(() => page.locator("h1").textContent()).toContain(question);
    expect((await page.locator("#answer").textContent())!.length).toBeGreaterThan(0);
    expect(await page.locator("ol.trace > li").count()).toBeGreaterThan(0);
    // A failed result says why.
    expect(await page.locator("#failure").textContent()).toContain('"reason"');
    await noErrorShown(page, "5-result-trace");
    // Back to the results: the same filtered list, not every result.
    await page.getByRole("link", { name: "Back to the results" }).click();
    await page.waitForURL(/\/results\?.*verdict=fail/);
    expect(await page.locator("tbody tr").count()).toBe(n);
    expect(await page.getByLabel("Answering model").inputValue()).toBe("beta");

    // A deep-judgment run: its result page marks the excerpt the judge quoted, inside the answer.
    const example = JSON.parse(fs.readFileSync(path.join(ROOT, `.wrangler/dev/port-${dev.port}/example-run.json`), "utf8"));
    const djRun = await fetch(`${dev.url}/v1/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        benchmark: {
          name: "deep judgment",
          questions: [
            {
              id: "dj",
              question: "Which protein does venetoclax inhibit?",
              template: {
                fields: [
                  { name: "answer", type: "str", description: "the protein", ground_truth: "BCL-2", verify_with: { type: "ExactMatch" } },
                ],
              },
            },
          ],
        },
        config: {
          deep_judgment_mode: "full",
          answering_models: [{ id: "m", interface: "manual", manual_answers: { dj: `${DJ_MARKER}: ${DJ_EXCERPT}, freeing apoptosis.` } }],
          parsing_models: example.config.parsing_models,
        },
      }),
    });
    expect(djRun.status).toBe(202);
    const djRunId = ((await djRun.json()) as { run_id: string }).run_id;
    await page.goto(`${dev.url}/dashboard/runs/${djRunId}`);
    await expect.poll(() => page.locator("#progress").getAttribute("data-status"), { timeout: 60_000, interval: 250 }).toBe("completed");
    await page.goto(`${dev.url}/dashboard/runs/${djRunId}/results`);
    await page.locator("tbody tr").first().getByRole("link").click();
    await page.waitForURL(/\/results\/[^/?]+$/);
    const mark = page.locator("#answer mark.excerpt");
    expect(await mark.count()).toBe(1);
    expect(await mark.textContent()).toBe(DJ_EXCERPT);
    expect(await mark.getAttribute("title")).toBe("answer");
    // Marked text is drawn apart from the rest of the answer (the stylesheet reached the mark).
    expect(await page.evaluate("getComputedStyle(document.querySelector('#answer mark.excerpt')).backgroundColor")).toBe(
      "rgb(255, 224, 102)",
    );
    expect(await page.locator("#field-verdicts td.verdict-pass").count()).toBe(1);
    await noErrorShown(page, "6-result-excerpt-marked");

    // Sign out ends the session: the pages send the browser back to sign in.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/dashboard\/sign-in$/);
    await page.goto(`${dev.url}/dashboard/runs`);
    expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
    await noErrorShown(page, "7-signed-out");
    expect(problems).toEqual([]);
  });
});
