/**
 * Issue 15 item 11: HTTP conventions a client library relies on. A known path asked with the
 * wrong method is a 405 listing the methods it takes (from the app's own routes); a 401 names
 * the auth scheme; a bad query parameter is `invalid_query`, not `invalid_body`.
 */
import { describe, expect, it } from "vitest";
import { api } from "./helpers";

describe("HTTP conventions", () => {
  it.each([
    ["PUT", "/v1/runs/some-run", "DELETE, GET, HEAD"],
    ["PUT", "/v1/runs", "GET, HEAD, POST"],
    ["GET", "/v1/judge", "POST"],
    ["GET", "/v1/judge/calibrate", "POST"],
    ["POST", "/v1/benchmarks/some-id/checkpoint", "GET, HEAD"],
    ["POST", "/health", "GET, HEAD"],
  ])("%s %s is a 405 with Allow: %s", async (method, path, allow) => {
    const res = await api(path, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe(allow);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("method_not_allowed");
    expect(body.error.message).toContain(allow);
  });

  it("keeps 404 for a path no method takes", async () => {
    const res = await api("/v1/nothing-here", { method: "GET" });
    expect(res.status).toBe(404);
    expect(res.headers.get("allow")).toBeNull();
  });

  it("answers 401 with WWW-Authenticate: Bearer, with no token and with a wrong one", async () => {
    for (const authorization of ["", "Bearer wrong-token"]) {
      const res = await api("/v1/runs", { headers: { authorization } });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="edgeval"');
    }
  });

  it.each([
    ["/v1/runs?limt=5", "query limt"],
    ["/v1/runs?limit=0", "query limit"],
    ["/v1/benchmarks?limit=abc", "query limit"],
    ["/v1/runs?cursor=not-a-cursor", "query cursor"],
    // a repeated parameter: its first value alone would not be what was asked
    ["/v1/runs?limit=5&limit=10", "query limit"],
    ["/v1/benchmarks?limit=5&limt=1&limit=5", "query limit"],
  ])("GET %s is a 400 invalid_query at %s", async (path, at) => {
    const res = await api(path);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; issues: { path: string; message: string }[] } };
    expect(body.error.code).toBe("invalid_query");
    expect(body.error.issues.map((i) => i.path)).toContain(at);
  });
});
