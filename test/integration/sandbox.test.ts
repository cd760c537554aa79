import { describe, expect, it } from "vitest";
import { createCodeVerifier } from "../../src/adapters/code-verifier";
import { callInSandbox } from "../../src/sandbox/quickjs";
import type { CodeVerifyRequest } from "../../src/templates/code-verify";

const frozen = { now: () => 1_700_000_000_000 };
/** The edge's frozen clock, a small heap and a small interrupt cap: runaway tests end in ~0.1 s. */
const verifier = createCodeVerifier({ javascript: { clock: frozen, limits: { memoryBytes: 4 * 1024 * 1024, maxInterrupts: 2_000 } } });

const req = (source: string, over: Partial<CodeVerifyRequest> = {}): CodeVerifyRequest => ({
  language: "javascript",
  source,
  parsed: { gene: "BCL2", count: 3 },
  ground_truth: { gene: "bcl2", count: 3 },
  raw_trace: "The gene is BCL2, three times.",
  ...over,
});

const sameGene = "function verify(answer, gt) { return answer.gene.toLowerCase() === gt.gene; }";

describe("custom verify in JavaScript, inside workerd", () => {
  it("passes when verify returns true", async () => {
    expect(await verifier.verify(req(sameGene))).toEqual({
      ok: true,
      verify_result: true,
      verify_granular_result: null,
      field_results: null,
    });
  });

  it("fails when verify returns false", async () => {
    const out = await verifier.verify(req(sameGene, { parsed: { gene: "TP53" } }));
    expect(out).toEqual({ ok: true, verify_result: false, verify_granular_result: null, field_results: null });
  });

  it("returns the granular score and field results of the object form, with context.raw_trace readable", async () => {
    const source = `
      const verify = (answer, gt, context) => {
        const gene = answer.gene.toLowerCase() === gt.gene;
        const count = answer.count === gt.count;
        const mentioned = context.raw_trace.includes("BCL2");
        return { verify_result: gene && count && mentioned, verify_granular_result: (gene + count) / 2, field_results: { gene, count } };
      };`;
    expect(await verifier.verify(req(source, { parsed: { gene: "BCL2", count: 4 } }))).toEqual({
      ok: true,
      verify_result: false,
      verify_granular_result: 0.5,
      field_results: { gene: true, count: false },
    });
  });

  it("reports a throw with its message", async () => {
    const out = await verifier.verify(req("function verify(answer) { return answer.missing.length > 0; }"));
    expect(out).toEqual({ ok: false, error: expect.stringMatching(/^verify threw: TypeError: .*(undefined|length)/) });
  });

  it("reports a thrown non-error, and cuts a huge message short", async () => {
    expect(await verifier.verify(req("function verify() { throw 42; }"))).toEqual({ ok: false, error: "verify threw: 42" });
    const out = await verifier.verify(req("function verify() { throw new Error('x'.repeat(100000)); }"));
    expect(out).toEqual({ ok: false, error: `verify threw: Error: ${"x".repeat(493)}…` });
  });

  it("reports a syntax error in the source", async () => {
    const out = await verifier.verify(req("function verify( {"));
    expect(out).toEqual({ ok: false, error: expect.stringMatching(/^evaluating the source threw: SyntaxError/) });
  });

  it("reports a source without verify, and a return outside the contract naming what came back", async () => {
    expect(await verifier.verify(req("function check() { return true; }"))).toEqual({
      ok: false,
      error: expect.stringMatching(/must define function verify\(\.\.\.\); verify is undefined/),
    });
    expect(await verifier.verify(req("function verify() { return 'yes'; }"))).toEqual({
      ok: false,
      error: expect.stringMatching(/it returned a string "yes"/),
    });
    expect(await verifier.verify(req("function verify() {}"))).toEqual({
      ok: false,
      error: expect.stringMatching(/verify returned undefined/),
    });
    expect(await verifier.verify(req("async function verify() { return true; }"))).toEqual({
      ok: false,
      error: expect.stringMatching(/a Promise \(verify must return synchronously\)/),
    });
  });

  it("stops an infinite loop by counting interrupts even though the clock never moves", async () => {
    const out = await verifier.verify(req("function verify() { while (true) {} }"));
    expect(out).toEqual({ ok: false, error: expect.stringMatching(/stopped: it ran past 2000 interrupt checks/) });
    expect(await verifier.verify(req(sameGene))).toMatchObject({ ok: true, verify_result: true });
  });

  it("stops unbounded allocation at the memory cap", async () => {
    const out = await verifier.verify(req("function verify() { const xs = []; for (let i = 0; ; i++) xs[i] = { i, s: 'x' + i }; }"));
    expect(out).toEqual({ ok: false, error: "verify ran out of memory (cap 4 MB)" });
    expect(await verifier.verify(req(sameGene))).toMatchObject({ ok: true, verify_result: true });
  });

  it("stops deep recursion at the stack cap", async () => {
    const out = await verifier.verify(req("function verify() { const f = (n) => f(n + 1) + 1; return f(0); }"));
    expect(out).toEqual({ ok: false, error: expect.stringMatching(/^verify threw: InternalError: stack overflow( \(line 1\))?$/) });
  });

  it("keeps serving after a runaway call, and each call starts from a fresh context", async () => {
    await verifier.verify(req("globalThis.leak = 1; function verify() { while (true) {} }"));
    const out = await verifier.verify(req("function verify() { return typeof leak === 'undefined'; }"));
    expect(out).toEqual({ ok: true, verify_result: true, verify_granular_result: null, field_results: null });
  });

  it("times out on the injected clock when it does move", async () => {
    let t = 0;
    const out = await callInSandbox("function verify() { while (true) {} }", "verify", [], {
      clock: { now: () => (t += 50) },
      limits: { timeoutMs: 500 },
    });
    expect(out).toEqual({ ok: false, kind: "interrupted", error: "stopped: it ran longer than 500 ms" });
  });

  it("exposes no host function to the guest", async () => {
    const out = await callInSandbox(
      "function verify() { return [typeof fetch, typeof console, typeof setTimeout, typeof require]; }",
      "verify",
      [],
    );
    expect(out).toEqual({ ok: true, value: ["undefined", "undefined", "undefined", "undefined"] });
  });

  it("dispatches python to the Python-subset interpreter", async () => {
    const source = [
      "from karenina.schemas.entities import BaseAnswer",
      "from pydantic import Field",
      "class Answer(BaseAnswer):",
      '    gene: str = Field(description="gene")',
      "    def model_post_init(self, __context):",
      '        self.correct = {"gene": "bcl2"}',
      "    def verify(self) -> bool:",
      '        return self.gene.lower() == self.correct["gene"]',
      "",
    ].join("\n");
    expect(await verifier.verify(req(source, { language: "python" }))).toMatchObject({ ok: true, verify_result: true });
    expect(await verifier.verify(req(source, { language: "python", parsed: { gene: "TP53" } }))).toMatchObject({
      ok: true,
      verify_result: false,
    });
  });
});
