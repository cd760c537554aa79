/**
 * The worker's whole HTTP app: the API (src/http) with the dashboard (src/dashboard) mounted at
 * /dashboard, outside /v1. Composed here because the dashboard builds on http/ (auth, run views),
 * so http/ cannot import it back.
 */
import { dashboard } from "./dashboard/routes";
import { buildApp } from "./http/app";

export const buildWorkerApp = () => buildApp([{ path: "/dashboard", app: dashboard }]);
