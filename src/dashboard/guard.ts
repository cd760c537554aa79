/**
 * What every dashboard response and request goes through: security headers with a strict CSP,
 * the Origin check on POSTs, and the session (cookie → principal, re-checked on each request).
 */
import type { MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { secureHeaders } from "hono/secure-headers";
import { isLocalMode } from "../env";
import type { AppEnv } from "../http/auth";
import { resumeSession, SESSION_COOKIE, SESSION_TTL_S } from "./session";

export const DASHBOARD = "/dashboard";

/** No inline script or style, nothing from another origin, no framing; pages are never cached. */
export const dashboardHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'"],
      connectSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
    // Not no-referrer: under it a browser sends "Origin: null" on form POSTs, and sameOriginPosts needs the origin.
    referrerPolicy: "same-origin",
    crossOriginResourcePolicy: "same-origin",
  })(c, next);
  c.header("Cache-Control", "no-store");
};

/**
 * A POST must come from a page of this origin: browsers send Origin on every cross-site POST, so a
 * missing or foreign one is refused (SameSite=Strict already keeps the cookie off cross-site requests;
 * this is the second lock, and it also covers sign-in, which has no cookie yet).
 */
export const sameOriginPosts: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method === "POST" && c.req.header("Origin") !== new URL(c.req.url).origin) {
    return c.text("refused: this form must be sent from the dashboard's own pages (Origin header missing or foreign)", 403);
  }
  await next();
};

export function setSessionCookie(c: Parameters<MiddlewareHandler<AppEnv>>[0], value: string): void {
  setCookie(c, SESSION_COOKIE, value, {
    path: DASHBOARD,
    httpOnly: true,
    sameSite: "Strict",
    // Local stacks serve plain http on 127.0.0.1, where a Secure cookie would never come back.
    secure: !isLocalMode(c.env),
    maxAge: SESSION_TTL_S,
  });
}

export function clearSessionCookie(c: Parameters<MiddlewareHandler<AppEnv>>[0]): void {
  deleteCookie(c, SESSION_COOKIE, { path: DASHBOARD, secure: !isLocalMode(c.env) });
}

/** Pages behind sign-in: a missing, expired or no-longer-valid session goes to the sign-in page. */
export const requireSession: MiddlewareHandler<AppEnv> = async (c, next) => {
  const principal = await resumeSession(c.env, getCookie(c, SESSION_COOKIE), new Date());
  if (!principal) {
    clearSessionCookie(c);
    // A script's request (the run page's EventSource) gets a 401 it can report, not the sign-in page.
    if (/application\/json|text\/event-stream/.test(c.req.header("accept") ?? "")) return c.json({ error: "signed out" }, 401);
    return c.redirect(`${DASHBOARD}/sign-in`, 303);
  }
  c.set("principal", principal);
  await next();
};
