/**
 * Which methods a path takes, read from the app's own route table (no second list to keep in
 * step): a known path asked with another method is a 405 with `Allow`, not a 404.
 */
import type { RouterRoute } from "hono/types";

/** Methods of the handlers (not the middleware, registered for ALL) whose pattern matches `path`; GET brings HEAD. */
export function allowedMethods(routes: readonly RouterRoute[], path: string): string[] {
  const methods = new Set<string>();
  for (const r of routes) {
    if (r.method === "ALL" || !patternOf(r.path).test(path)) continue;
    methods.add(r.method);
    if (r.method === "GET") methods.add("HEAD");
  }
  return [...methods].sort();
}

const patterns = new Map<string, RegExp>();

/** Hono's path syntax as used here: literal segments, `:name` parameters, a trailing `*`; a trailing slash is optional. */
function patternOf(routePath: string): RegExp {
  let re = patterns.get(routePath);
  if (!re) {
    const body = routePath
      .replace(/\/$/, "")
      .split("/")
      .map((seg) => (seg === "*" ? ".*" : seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/");
    re = new RegExp(`^${body}/?$`);
    patterns.set(routePath, re);
  }
  return re;
}
