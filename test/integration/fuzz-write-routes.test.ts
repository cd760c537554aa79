/**
 * Issue 16 (c), in part: every write route of the app (enumerated from `app.routes`, so a new route
 * is covered automatically) gets random JSON bodies from fast-check — arbitrary values, deep
 * nesting past the limit, non-finite-looking numbers, unicode — and must never answer 5xx. A body
 * nested past 64 levels is a 4xx. (Not yet here: the byte-identical read-back of every 2xx and
 * bodies built valid per route; see the report of issue 16.)
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/app";
import { TOKEN } from "./helpers";

const app = buildApp();
const sent: unknown[] = [];
const spyQueue = { send: async (m: unknown) => void sent.push(m), sendBatch: async (ms: unknown[]) => void sent.push(...ms) };
const fuzzEnv = () => ({ ...env, JOBS: spyQueue as unknown as Queue<unknown> });

const WRITE = new Set(["POST", "PUT", "PATCH"]);
const routes = [...new Map(app.routes.filter((r) => WRITE.has(r.method) && r.path.startsWith("/v1/")).map((r) => [`${r.method} ${r.path}`, r])).values()];
const concrete = (path: string) => path.replace(/:[A-Za-z_]+/g, "x1").replace(/\*/g, "x");
const deep = (d: number) => `${"[".repeat(d)}1${"]".repeat(d)}`;

const body = fc.oneof(
  fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
  fc.record({ benchmark: fc.jsonValue({ maxDepth: 4 }), config: fc.jsonValue({ maxDepth: 4 }), output: fc.string() }).map((v) => JSON.stringify(v)),
  fc.integer({ min: 65, max: 3000 }).map((d) => `{"x":${deep(d)}}`),
  fc.constantFrom("1e999", "-1e999", '{"a":1e400}', '{"weight":1e308}', '{"a":1,"a":2}', "[]", "null", '""'),
);

describe("fuzzing every write route", () => {
  it("finds the write routes in app.routes", () => expect(routes.length).toBeGreaterThan(3));

  it.each(routes.map((r) => [r.method, r.path]))("%s %s never answers 5xx", async (method, path) => {
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const res = await app.fetch(
          new Request(`http://edgeval.test${concrete(path)}`, { method, body: text, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" } }),
          fuzzEnv(),
        );
        await res.arrayBuffer();
        if (res.status >= 500) throw new Error(`${res.status} for ${text.slice(0, 200)}`);
        if (/^\{"x":\[{65}/.test(text) && res.status < 400) throw new Error(`${res.status} for a body nested past the limit`);
      }),
      { numRuns: 1000 },
    );
  }, 120_000);
});
