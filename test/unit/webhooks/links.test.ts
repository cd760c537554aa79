// Where webhook links point (src/webhooks/links.ts): the operator's origin wins, else the one the
// run's submit came in on; a run from before api_origin keeps paths.
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import { apiLink, requestOrigin, storedOrigin } from "../../../src/webhooks/links";

const env = (vars: Record<string, string>) => vars as unknown as Env;

describe("webhook links", () => {
  it("a request's links use its own origin unless the operator set EDGEVAL_PUBLIC_ORIGIN", () => {
    const req = { url: "http://127.0.0.1:8787/v1/runs?x=1" };
    expect(requestOrigin({ env: env({}), req })).toBe("http://127.0.0.1:8787");
    expect(requestOrigin({ env: env({ EDGEVAL_PUBLIC_ORIGIN: "https://evals.example.com" }), req })).toBe("https://evals.example.com");
    // An unusable value is reported (src/config.ts) and the request's origin used.
    expect(requestOrigin({ env: env({ EDGEVAL_PUBLIC_ORIGIN: "https://evals.example.com/v1" }), req })).toBe("http://127.0.0.1:8787");
  });

  it("a stored run's links use the operator's origin, else the recorded one, else paths", () => {
    expect(storedOrigin(env({}), "http://edgeval.test")).toBe("http://edgeval.test");
    expect(storedOrigin(env({ EDGEVAL_PUBLIC_ORIGIN: "https://evals.example.com" }), "http://edgeval.test")).toBe(
      "https://evals.example.com",
    );
    expect(storedOrigin(env({}), null)).toBeNull();
    expect(apiLink(null, "/v1/runs/r")).toBe("/v1/runs/r");
    expect(apiLink("https://evals.example.com", "/v1/runs/r")).toBe("https://evals.example.com/v1/runs/r");
  });
});
