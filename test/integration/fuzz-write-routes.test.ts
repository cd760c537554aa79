/**
 * Issue 16 (bounded input): every write route of the app (enumerated from `app.routes`, so a new
 * route is covered automatically) gets 1,000 bodies from fast-check — arbitrary JSON, shapes near
 * the API's, and bodies built to be invalid: nesting past 64 levels, numbers JSON cannot hold
 * (1e999), keys named __proto__, bytes that are not UTF-8 (read with `fatal: true`). No body may give a 5xx; every 4xx
 * writes nothing (no D1 row, R2 object, queue message or coordinator, test/integration/write-counter.ts);
 * every invalid one is a 4xx at its path. Duplicate keys: the last one wins (JSON.parse; README).
 * Stored bodies read back byte-identical: fuzz-readback.test.ts.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/app";
import { TOKEN } from "./helpers";
import { countingEnv, total } from "./write-counter";
import { writeTestFigures } from "../reliability/scenario";

/** Bodies per route. */
const FUZZ_RUNS = 1000;

const app = buildApp();
const counted = countingEnv();

const WRITE = new Set(["POST", "PUT", "PATCH"]);
const routes = [
  ...new Map(app.routes.filter((r) => WRITE.has(r.method) && r.path.startsWith("/v1/")).map((r) => [`${r.method} ${r.path}`, r])).values(),
];
// A secret's name must look like one (else the path is refused before the body is read).
const concrete = (path: string) =>
  path
    .replace(":name", "FUZZ_SECRET")
    .replace(/:[A-Za-z_]+/g, "x1")
    .replace(/\*/g, "x");
const tokenFor = (path: string) => (path.startsWith("/v1/admin/") ? "test-admin-token" : TOKEN);
const deep = (d: number) => `${"[".repeat(d)}1${"]".repeat(d)}`;
const utf8 = (s: string) => new TextEncoder().encode(s);
const join = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, at), (at += p.length);
  return out;
};

/** A body, and for one built to be invalid, what its refusal must say. */
type Case = { bytes: Uint8Array; invalid?: { path?: string; code?: string } };

const BAD_UTF8 = [[0xff], [0xc3], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]].map((b) => new Uint8Array(b));

const cases: fc.Arbitrary<Case> = fc.oneof(
  fc.jsonValue({ maxDepth: 6 }).map((v) => ({ bytes: utf8(JSON.stringify(v)) })),
  fc
    .record({ benchmark: fc.jsonValue({ maxDepth: 4 }), config: fc.jsonValue({ maxDepth: 4 }), output: fc.string() })
    .map((v) => ({ bytes: utf8(JSON.stringify(v)) })),
  fc.constantFrom('{"weight":1e308}', '{"a":1,"a":2}', "[]", "null", '""').map((t) => ({ bytes: utf8(t) })),
  // Invalid: too deep, at x.
  fc.integer({ min: 65, max: 3000 }).map((d) => ({ bytes: utf8(`{"x":${deep(d)}}`), invalid: { path: "x" } })),
  // Invalid: a number JSON cannot hold, at a.b.
  fc.constantFrom("1e999", "-1e999", "1e400", "-2e308").map((n) => ({ bytes: utf8(`{"a":{"b":${n}}}`), invalid: { path: "a.b" } })),
  // Invalid: a key named __proto__ (every object built from the parse would drop it), at a.__proto__.
  fc
    .constantFrom('{"a":{"__proto__":{"x":1}}}', '{"a":{"b":1,"__proto__":null}}')
    .map((t) => ({ bytes: utf8(t), invalid: { path: "a.__proto__" } })),
  // Invalid: not UTF-8, inside an otherwise fine string.
  fc.tuple(fc.string({ maxLength: 20 }), fc.constantFrom(...BAD_UTF8)).map(([s, bad]) => ({
    bytes: join(utf8(`{"name":${JSON.stringify(s).slice(0, -1)}`), bad, utf8('"}')),
    invalid: { code: "invalid_json" },
  })),
);

describe("fuzzing every write route", () => {
  it("finds the write routes in app.routes", () => expect(routes.length).toBeGreaterThan(3));

  // Scenario 9 of the reliability suite (test/reliability/README.md): routes whose 1,000 cases all held.
  const held: string[] = [];
  afterAll(async () => {
    await writeTestFigures({
      name: "s9-fuzzed-bodies",
      scenario: "9 fuzzed bodies on every write route",
      size: `${routes.length} routes × ${FUZZ_RUNS} bodies`,
      faults_injected: routes.length * FUZZ_RUNS,
      invariants: {
        no_5xx_refusals_write_nothing: {
          pass: held.length === routes.length,
          detail: `${held.length} of ${routes.length} routes held for every body`,
        },
      },
    });
  });

  it.each(routes.map((r) => [r.method, r.path]))(
    "%s %s: no 5xx, every refusal writes nothing, invalid bodies are 4xx at their path",
    async (method, path) => {
      await fc.assert(
        fc.asyncProperty(cases, async ({ bytes, invalid }) => {
          counted.reset();
          const res = await app.fetch(
            new Request(`http://edgeval.test${concrete(path)}`, {
              method,
              body: bytes,
              headers: { authorization: `Bearer ${tokenFor(path)}`, "content-type": "application/json" },
            }),
            counted.env,
          );
          const text = await res.text();
          const shown = new TextDecoder().decode(bytes).slice(0, 200);
          if (res.status >= 500) throw new Error(`${res.status} for ${shown}: ${text.slice(0, 300)}`);
          if (res.status >= 400 && total(counted.writes) > 0)
            throw new Error(`${res.status} for ${shown} wrote ${JSON.stringify(counted.writes)}`);
          if (!invalid) return;
          if (res.status < 400 || [401, 403, 404, 429].includes(res.status)) {
            // Refusals before the body is read (auth, no such parent, rate): nothing to check about the body.
            if (res.status < 400) throw new Error(`${res.status} for an invalid body ${shown}`);
            return;
          }
          const error = (JSON.parse(text) as { error: { code: string; issues?: { path: string }[] } }).error;
          if (invalid.code && error.code !== invalid.code) throw new Error(`code ${error.code} for ${shown}`);
          if (
            invalid.path &&
            !error.issues?.some(
              (i) => i.path === invalid.path || i.path.startsWith(`${invalid.path}[`) || i.path.startsWith(`${invalid.path}.`),
            )
          ) {
            throw new Error(`no issue at ${invalid.path} for ${shown}: ${text.slice(0, 300)}`);
          }
        }),
        { numRuns: FUZZ_RUNS },
      );
      held.push(`${method} ${path}`);
    },
    240_000,
  );
});
