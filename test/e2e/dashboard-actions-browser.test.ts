// Issue 25: the dashboard's actions in a real browser (Debian's Chromium through playwright-core)
// against `npm run dev`: Cancel pressed on a running run stops it; the compare page of two runs shows
// the questions whose verdict flipped; an export started with a button is downloaded by the
// browser; a re-score sent from the run page's form lands on the new run's page; and a keyboard walk (Tab) through sign-in, the run page's actions and the results filters
// reaches every interactive element in order, with visible focus and an accessible name (checked
// to fail when a control loses its label). A page that shows an error, logs a console error or
// gets an HTTP error fails the test. Screenshots go to test-output/dashboard/.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureChromium } from "./browser/chromium";
import { createTenantKey, noErrorShown, SHOTS, signIn, submitRun, watchedPage } from "./browser/dashboard-pages";
import { keyboardWalk } from "./browser/keyboard-walk";
import { type DevServer, ROOT, startDev } from "./dev-server";

/** examples/basic's replies wait this long, so a run of it is still going when Cancel is pressed. */
const SLOW_REPLY_MS = 15_000;
/** Answers carrying these markers are parsed as right ("Paris") or wrong ("Lyon") at once. */
const RIGHT = "CMP-RIGHT";
const WRONG = "CMP-WRONG";

let dev: DevServer;
let browser: Browser;
let tmp: string;
let key: string;
/** Run A answers q0..q3 right; run B gets q0 and q1 wrong: two pass → fail flips. */
let runA: string;
let runB: string;

const template = {
  fields: [{ name: "answer", type: "str", description: "the city", ground_truth: "Paris", verify_with: { type: "ExactMatch" } }],
};

function manualRun(name: string, wrong: Set<number>, parsingModels: unknown) {
  const questions = [0, 1, 2, 3].map((i) => ({ id: `q${i}`, question: `Which city is the capital of France? (${i})`, template }));
  const answers = Object.fromEntries(questions.map((q, i) => [q.id, `${wrong.has(i) ? `Lyon ${WRONG}` : `Paris ${RIGHT}`}`]));
  return {
    run_name: name,
    benchmark: { name: "browser compare", questions },
    config: { answering_models: [{ id: "m", interface: "manual", manual_answers: answers }], parsing_models: parsingModels },
  };
}

async function runStatus(runId: string): Promise<string> {
  const res = await fetch(`${dev.url}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${key}` } });
  return ((await res.json()) as { status: string }).status;
}

beforeAll(async () => {
  const executablePath = ensureChromium();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "edgeval-dashboard-actions-"));
  const script = JSON.parse(fs.readFileSync(path.join(ROOT, "examples/basic/fake-script.json"), "utf8"));
  for (const rule of script.rules) rule.reply.latency_ms = SLOW_REPLY_MS;
  script.rules.unshift(
    { match: { contains: WRONG }, reply: { json: { answer: "Lyon" } } },
    { match: { contains: RIGHT }, reply: { json: { answer: "Paris" } } },
  );
  const scriptFile = path.join(tmp, "fake-script.json");
  fs.writeFileSync(scriptFile, JSON.stringify(script));
  fs.mkdirSync(SHOTS, { recursive: true });
  [dev, browser] = await Promise.all([
    startDev(["--fake-script", scriptFile]),
    chromium.launch({ executablePath, args: ["--no-sandbox"] }),
  ]);
  key = await createTenantKey(dev.url);
  const example = JSON.parse(fs.readFileSync(path.join(ROOT, `.wrangler/dev/port-${dev.port}/example-run.json`), "utf8"));
  runA = await submitRun(dev.url, key, manualRun("before", new Set(), example.config.parsing_models));
  runB = await submitRun(dev.url, key, manualRun("after", new Set([0, 1]), example.config.parsing_models));
  for (const id of [runA, runB]) await vi.waitUntil(async () => (await runStatus(id)) === "completed", { timeout: 60_000, interval: 250 });
}, 150_000);

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("dashboard actions in Chromium", () => {
  it("Cancel pressed on a running run's page stops it: status cancelled, the button gone", async () => {
    const { page, problems } = await watchedPage(browser);
    await signIn(page, dev.url, key);
    const slow = await submitRun(dev.url, key, fs.readFileSync(path.join(ROOT, `.wrangler/dev/port-${dev.port}/example-run.json`), "utf8"));
    await page.goto(`${dev.url}/dashboard/runs/${slow}`);
    expect(await page.locator("#run-status").textContent()).toMatch(/^(queued|running)$/);
    await noErrorShown(page, "a1-run-before-cancel");
    await page.getByRole("button", { name: "Cancel run" }).click();
    await page.waitForURL(new RegExp(`/dashboard/runs/${slow}$`));
    await expect.poll(() => page.locator("#run-status").textContent(), { timeout: 20_000 }).toBe("cancelled");
    expect(await page.locator("#cancel-form").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Cancel run" }).count()).toBe(0);
    expect(await runStatus(slow)).toBe("cancelled");
    await noErrorShown(page, "a2-run-cancelled");
    expect(problems).toEqual([]);
  });

  it("a run with a huge unbroken unicode name fits the window: runs list, run page, results and a comparison", async () => {
    const { page, problems } = await watchedPage(browser);
    await signIn(page, dev.url, key);
    const example = JSON.parse(fs.readFileSync(path.join(ROOT, `.wrangler/dev/port-${dev.port}/example-run.json`), "utf8"));
    const name = `Ünïcødé 評価 "quoted" <b>bold</b> ${"x".repeat(160)}`;
    const long = await submitRun(dev.url, key, manualRun(name, new Set([0]), example.config.parsing_models));
    await vi.waitUntil(async () => (await runStatus(long)) === "completed", { timeout: 60_000, interval: 250 });
    for (const url of [
      `/dashboard/runs`,
      `/dashboard/runs/${long}`,
      `/dashboard/runs/${long}/results`,
      `/dashboard/runs/${runB}/compare?a=${long}`,
    ]) {
      await page.goto(`${dev.url}${url}`);
      const [scroll, inner] = (await page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")) as number[];
      expect(scroll, `${url} is ${scroll} px wide in a ${inner} px window`).toBeLessThanOrEqual(inner!);
    }
    await page.goto(`${dev.url}/dashboard/runs/${long}`);
    expect(await page.locator("h1").textContent()).toBe(`Run ${name}`);
    await noErrorShown(page, "a2b-long-name");
    expect(problems).toEqual([]);
  });

  it("compares two runs from the run page and shows the flipped questions", async () => {
    const { page, problems } = await watchedPage(browser);
    await signIn(page, dev.url, key);
    await page.goto(`${dev.url}/dashboard/runs/${runB}`);
    await page.getByLabel("Compare with run").selectOption(runA);
    await page.getByRole("button", { name: "Compare" }).click();
    await page.waitForURL(new RegExp(`/dashboard/runs/${runB}/compare\\?a=${runA}$`));
    expect(await page.locator("h2#flips-heading").textContent()).toBe("Questions whose verdict flipped (2)");
    const flipped = await page.locator("#compare-flips tbody tr td:first-child").allTextContents();
    expect(flipped).toEqual(["q0", "q1"]);
    expect(await page.locator("#compare-flips tbody").textContent()).toContain("pass → fail");
    const pair = await page.locator("#compare-pairs tbody tr").first().locator("td").allTextContents();
    expect(pair.slice(5, 10)).toEqual(["100.0 %", "50.0 %", "-50.0 points", "2", "0"]);
    await noErrorShown(page, "a3-compare");
    // A flipped question links to its results in run B.
    await page.getByRole("link", { name: "q0" }).click();
    await page.waitForURL(/results\?question_id=q0$/);
    expect(await page.locator("tbody tr").count()).toBe(1);
    expect(problems).toEqual([]);
  });

  it("an export started with a button is built and downloaded by the browser", async () => {
    const { page, problems } = await watchedPage(browser, { acceptDownloads: true });
    await signIn(page, dev.url, key);
    await page.goto(`${dev.url}/dashboard/runs/${runB}`);
    await page.getByRole("button", { name: "Export Karenina JSON" }).click();
    await page.waitForURL(new RegExp(`/dashboard/runs/${runB}/exports/[0-9a-f-]{36}$`));
    // The page's script notices the export is ready and reloads with the download link.
    const link = page.locator("#export-download");
    await link.waitFor({ timeout: 30_000 });
    expect(await page.locator("#export-status").textContent()).toMatch(/^ready: 4 results, \d+(\.\d+)? (bytes|kB)$/);
    expect(await page.locator("#export-status .size").getAttribute("title")).toMatch(/^[\d,]+ bytes$/);
    await noErrorShown(page, "a4-export-ready");
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    // The run's name, its id, when the export was made and the export's id: no two exports share a file name.
    expect(download.suggestedFilename()).toMatch(new RegExp(`^after_${runB.slice(0, 8)}_\\d{8}T\\d{6}Z_[0-9a-f]{8}\\.json$`));
    const file = path.join(tmp, "export.json");
    await download.saveAs(file);
    const doc = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(doc).toMatchObject({ format_version: "2.2", metadata: { job_id: runB } });
    expect(doc.results.map((r: { metadata: { question_id: string } }) => r.metadata.question_id).sort()).toEqual(["q0", "q1", "q2", "q3"]);
    expect(problems).toEqual([]);
  });

  it("a re-score with another judge model, sent from the run page's form, lands on the new run's page", async () => {
    const { page, problems } = await watchedPage(browser);
    await signIn(page, dev.url, key);
    await page.goto(`${dev.url}/dashboard/runs/${runA}`);
    await page.getByLabel("New judge's model").fill("second-judge-model");
    await page.getByLabel("New run's name").fill("before, judged twice");
    await page.getByRole("button", { name: "Re-score" }).click();
    await page.waitForURL(/\/dashboard\/runs\/[0-9a-f-]{36}$/);
    const child = page.url().split("/").pop()!;
    expect(child).not.toBe(runA);
    expect(await page.locator("h1").textContent()).toBe("Run before, judged twice");
    expect(await page.locator("#lineage").textContent()).toContain(`Re-scored from run ${runA}`);
    await expect.poll(() => page.reload().then(() => page.locator("#run-status").textContent()), { timeout: 30_000 }).toBe("completed");
    expect(await page.locator("table").first().textContent()).toContain("second-judge-model");
    await noErrorShown(page, "a4b-rescored");
    expect(problems).toEqual([]);
  });

  it("a keyboard walk reaches every control of sign-in, the run page and the results filters, visibly focused and labelled", async () => {
    const { page, problems } = await watchedPage(browser);
    await page.goto(`${dev.url}/dashboard/sign-in`);
    const signInWalk = await keyboardWalk(page, "sign-in");
    expect(signInWalk.problems).toEqual([]);
    expect(signInWalk.reached.join(" | ")).toMatch(/input#key .*\| button Sign in/);
    await noErrorShown(page, "a5-keyboard-sign-in");

    await signIn(page, dev.url, key);
    await page.goto(`${dev.url}/dashboard/runs/${runB}`);
    const runWalk = await keyboardWalk(page, "run page");
    expect(runWalk.problems).toEqual([]);
    for (const control of [
      "a Runs",
      "button Sign out",
      "a Results",
      "select#compare-a",
      "button Compare",
      "button Export Karenina JSON",
      "button Export CSV",
      "button Export NDJSON",
      "select#judge_base",
      "input#judge_model_name",
      "input#judge_id",
      "input#replicate_count",
      "input#rescore_run_name",
      "button Re-score",
    ]) {
      expect(
        runWalk.reached.some((r) => r.startsWith(control)),
        `${control} reached on the run page: ${runWalk.reached.join(" | ")}`,
      ).toBe(true);
    }

    await page.goto(`${dev.url}/dashboard/runs/${runB}/results`);
    const resultsWalk = await keyboardWalk(page, "results");
    expect(resultsWalk.problems).toEqual([]);
    for (const control of [
      "select#verdict",
      "input#answering_model",
      "input#parsing_model",
      "input#question_id",
      "select#failure_group",
      "button Filter",
    ]) {
      expect(
        resultsWalk.reached.some((r) => r.startsWith(control)),
        `${control} reached on the results page`,
      ).toBe(true);
    }
    await noErrorShown(page, "a6-keyboard-results");

    // The walk is a real check: the same page with one filter's label removed fails it.
    await page.evaluate(`document.querySelector('label[for="answering_model"]').remove()`);
    const unlabelled = await keyboardWalk(page, "results without a label");
    expect(unlabelled.problems).toEqual([
      "results without a label: input#answering_model answering_model has no accessible name (no label)",
    ]);
    expect(problems).toEqual([]);
  });
});
