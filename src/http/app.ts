/** The Hono app: request ids, auth on /v1, one error handler that speaks the API's error shape. */
import { Hono } from "hono";
import { requestId } from "hono/request-id";
import type { Env } from "../env";
import { log } from "../log";
import { bearerAuth } from "./auth";
import { benchmarks } from "./benchmarks";
import { ApiFailure, errorResponse } from "./errors";
import { judge } from "./judge";
import { runs } from "./runs";

export function buildApp() {
  const app = new Hono<{ Bindings: Env }>();
  app.use(requestId());
  app.get("/health", (c) => c.json({ ok: true }));
  app.use("/v1/*", bearerAuth);
  app.route("/v1/runs", runs);
  app.route("/v1/benchmarks", benchmarks);
  app.route("/v1/judge", judge);
  app.notFound((c) => errorResponse(c, { code: "not_found", message: `no route ${c.req.method} ${c.req.path}` }));
  app.onError((err, c) => {
    if (err instanceof ApiFailure) return errorResponse(c, err.error);
    log.warn("unhandled_error", { path: c.req.path, error: String(err), request_id: c.get("requestId") });
    return errorResponse(c, { code: "internal", message: "internal error; retry, and report the request_id if it persists" });
  });
  return app;
}
