/** The Hono app: request ids, auth on /v1, undeclared query parameters refused, one error handler that speaks the API's error shape. */
import { Hono } from "hono";
import { except } from "hono/combine";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { log } from "../log";
import { admin } from "./admin";
import { audit } from "./audit";
import { type AppEnv, tenantAuth } from "./auth";
import { benchmarks } from "./benchmarks";
import { allowedMethods } from "./allow";
import { ApiFailure, errorResponse } from "./errors";
import { judge } from "./judge";
import { keys } from "./keys";
import { requestRate } from "./request-rate";
import { schedules } from "./schedules";
import { secrets } from "./secrets";
import { usage } from "./usage";
import { webhooks } from "./webhooks";
import { runCompare } from "./compare";
import { runExports } from "./exports";
import { runRescore } from "./rescore";
import { runs } from "./runs";
import { OPERATIONS } from "../openapi/operations";
import { apiDocs } from "../openapi/routes";
import { undeclaredQuery } from "./undeclared-query";
import { hooks } from "./hooks";
import { triggers } from "./triggers";
import { presets } from "./presets";
import { promptfoo } from "./promptfoo";
import { storedJudges } from "./stored-judges";

/** An app mounted beside the API (the dashboard, src/worker-app.ts): passed in, so http/ never imports it. */
export interface MountedApp {
  path: string;
  app: Hono<AppEnv>;
}

export function buildApp(mounted: readonly MountedApp[] = []) {
  const app = new Hono<AppEnv>();
  app.use(requestId());
  app.get("/health", (c) => c.json({ ok: true }));
  // The API reference: /openapi.json and /docs (public, like /health).
  app.route("/", apiDocs);
  for (const m of mounted) app.route(m.path, m.app);
  // Tenant routes take an API key (or EDGEVAL_API_TOKEN); /v1/admin takes the operator's token;
  // /v1/hooks takes a trigger's signature instead (src/triggers/README.md), and a stored judge's
  // promptfoo route its judge token (src/stored-judges/README.md).
  const keyless = ["/v1/admin/*", "/v1/hooks/*", "/v1/judges/:id/promptfoo"];
  app.use("/v1/*", except(keyless, tenantAuth));
  app.use("/v1/*", except(keyless, requestRate));
  // Finds the matched route's query rule for every router, keyless ones included; each auth kind
  // refuses a parameter the route does not declare once it has accepted the caller, so a caller
  // without credentials gets its 401 (or 403) first, and nothing is written either way.
  app.use("/v1/*", undeclaredQuery(OPERATIONS));
  app.route("/v1/admin", admin);
  app.route("/v1/keys", keys);
  app.route("/v1/audit", audit);
  app.route("/v1/secrets", secrets);
  app.route("/v1/usage", usage);
  // Before runs: /v1/runs/:id would take "compare" for a run id.
  app.route("/v1/runs", runCompare);
  app.route("/v1/runs", runExports);
  app.route("/v1/runs", runRescore);
  app.route("/v1/runs", runs);
  app.route("/v1/benchmarks", benchmarks);
  app.route("/v1/schedules", schedules);
  app.route("/v1/judge", judge);
  app.route("/v1/webhook-endpoints", webhooks);
  app.route("/v1/triggers", triggers);
  app.route("/v1/presets", presets);
  app.route("/v1/hooks", hooks);
  app.route("/v1/judges", promptfoo);
  app.route("/v1/judges", storedJudges);
  app.notFound((c) => {
    const allow = allowedMethods(app.routes, c.req.path);
    if (allow.length === 0) return errorResponse(c, { code: "not_found", message: `no route ${c.req.method} ${c.req.path}` });
    return errorResponse(
      c,
      { code: "method_not_allowed", message: `${c.req.path} does not take ${c.req.method}; it takes ${allow.join(", ")}` },
      { Allow: allow.join(", ") },
    );
  });
  app.onError((err, c) => {
    if (err instanceof ApiFailure) return errorResponse(c, err.error);
    // Hono's bearer middleware throws these with the response already built (ours, via its message option).
    if (err instanceof HTTPException) return err.getResponse();
    log.warn("unhandled_error", { path: c.req.path, error: String(err), request_id: c.get("requestId") });
    return errorResponse(c, { code: "internal", message: "internal error; retry, and report the request_id if it persists" });
  });
  return app;
}
