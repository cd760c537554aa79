/**
 * A /v1 route that declares no query (its documented operation has no `query` schema) takes no
 * query parameter but those its auth kind carries (AUTH_QUERY: a judge token's `?token=`). Any
 * other is a 400 `invalid_query` at `query <name>`, before the handler runs, so nothing is written:
 * `GET /v1/runs/:id?include=results` answered as a plain read, or `DELETE …?force=true` as a plain
 * delete, would ignore what the caller asked for. A route that declares a query checks it itself
 * (validateQuery in body.ts refuses unknown parameters), so it is passed through untouched.
 *
 * The refusal waits for the caller to be authorised: a caller without valid credentials learns
 * nothing about the route but its 401, and a key without the route's scope its 403. So the /v1
 * middleware only finds the route's rule (in a Map built once per app from the operations, the one
 * list of /v1 routes that the route-coverage test keeps equal to the app's) and leaves it on the
 * context; each auth kind's step calls `refuseUndeclaredQuery` once it has accepted the caller:
 * `requireScope` and `adminAuth` (src/http/auth.ts), the judge token (promptfoo.ts) and the
 * trigger's signature (hooks.ts). test/integration/undeclared-query-auth.test.ts runs every
 * operation without a query through both sides of that line. A request that matched no handler
 * (a 404, a 405) is left to the not-found handler.
 */
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { AUTH_QUERY, type Operation } from "../openapi/operation";
import type { FieldIssue } from "../schemas/field-issue";
import type { AppEnv } from "./auth";
import { repeatedParameter } from "./body";
import { invalidQuery } from "./errors";

/** What a route without a query schema takes: the parameters of its auth kind, and how to name it. */
export interface UndeclaredQuery {
  route: string;
  takes: ReadonlySet<string>;
}

/** `GET /v1/runs/:id`, as hono's route table spells the path (a router's "/" may leave a trailing slash). */
const routeKey = (method: string, path: string) => `${method.toUpperCase()} ${path.length > 1 ? path.replace(/\/$/, "") : path}`;

export function undeclaredQuery(operations: readonly Operation[]): MiddlewareHandler<AppEnv> {
  const undeclared = new Map<string, UndeclaredQuery>();
  for (const op of operations) {
    if (op.query) continue;
    const route = routeKey(op.method, op.path);
    undeclared.set(route, { route, takes: new Set(AUTH_QUERY[op.auth.kind]) });
  }
  return async (c, next) => {
    // Most requests carry no query: they pay for one string search, not a route lookup.
    if (!c.req.url.includes("?")) return next();
    // The first handler (middleware is registered for ALL) is the one that answers: hono matches
    // in registration order, so /v1/runs/compare finds its own route before /v1/runs/:id. HEAD is
    // matched as GET.
    const handler = matchedRoutes(c).find((r) => r.method !== "ALL");
    const rule = handler && undeclared.get(routeKey(handler.method, handler.path));
    if (rule) c.set("undeclaredQuery", rule);
    return next();
  };
}

/** The 400 for a parameter the matched route does not take; called once the caller is authorised. */
export function refuseUndeclaredQuery(c: Context<AppEnv>): void {
  const rule = c.get("undeclaredQuery");
  if (!rule) return;
  const issues: FieldIssue[] = [];
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (!rule.takes.has(name)) issues.push({ path: `query ${name}`, message: refusal(rule) });
    else if (values.length > 1) issues.push(repeatedParameter(name, values.length));
  }
  if (issues.length > 0) throw invalidQuery(issues);
}

function refusal(rule: UndeclaredQuery): string {
  if (rule.takes.size === 0) return `${rule.route} takes no query parameters; remove it`;
  return `${rule.route} takes no query parameter but ${[...rule.takes].join(", ")}; remove it`;
}
