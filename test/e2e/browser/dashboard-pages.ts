/**
 * What the dashboard's browser tests share: a page that records every console error, uncaught
 * script error and HTTP error response (the tests end with none), a screenshot that fails when the
 * page shows an error, a fresh tenant's key from the local admin token, and signing in.
 */
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";
// @ts-expect-error plain-Node module without types
import { localAdminToken } from "../../../scripts/lib/env-files.mjs";
import { ROOT } from "../dev-server";

export const SHOTS = path.join(ROOT, "test-output", "dashboard");

/** A page that fails the test on any console error, uncaught script error or HTTP error response. */
export async function watchedPage(
  browser: Browser,
  options: { acceptDownloads?: boolean } = {},
): Promise<{ page: Page; problems: string[] }> {
  const page = await (await browser.newContext(options)).newPage();
  const problems: string[] = [];
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("response", (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()} ${r.url()}`));
  return { page, problems };
}

/** A full-page screenshot in test-output/dashboard/; fails if the page shows an error box. */
export async function noErrorShown(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  expect(await page.locator(".error").count(), `${name} shows an error: ${await page.locator(".error").allTextContents()}`).toBe(0);
}

/** A new tenant (through the local admin token) and its first key, which has every scope. */
export async function createTenantKey(baseUrl: string): Promise<string> {
  const tenantId = `dash${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const res = await fetch(`${baseUrl}/v1/admin/tenants`, {
    method: "POST",
    headers: { authorization: `Bearer ${localAdminToken()}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Dashboard test", tenant_id: tenantId }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { key: { key: string } }).key.key;
}

/** Signs in through the sign-in form, as a person would. */
export async function signIn(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/sign-in`);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/dashboard\/runs$/);
}

/** POST /v1/runs with `key`; the run id. */
export async function submitRun(baseUrl: string, key: string, body: unknown): Promise<string> {
  const res = await fetch(`${baseUrl}/v1/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(202);
  return ((await res.json()) as { run_id: string }).run_id;
}
