/** Signing in to the dashboard inside workerd: its session cookie for a key, and requests with it. */
import { exports } from "cloudflare:workers";
import { expect } from "vitest";

export const ORIGIN = "http://edgeval.test";

/** POST /dashboard/sign-in as the browser's form would; the `name=value` of the session cookie. */
export async function dashboardSession(key: string): Promise<string> {
  const res = await dashboardFetch("/dashboard/sign-in", {
    method: "POST",
    body: new URLSearchParams({ key }),
    headers: { origin: ORIGIN },
  });
  expect(res.status).toBe(303);
  const cookie = res.headers.get("set-cookie") ?? "";
  expect(cookie).toMatch(/^edgeval_session=/);
  return cookie.split(";")[0]!;
}

/** A dashboard request without following redirects (a redirect to sign-in is what a test checks for). */
export function dashboardFetch(path: string, init: RequestInit & { cookie?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set("cookie", init.cookie);
  return exports.default.fetch(`${ORIGIN}${path}`, { ...init, headers, redirect: "manual" });
}
