/**
 * The callable-trait runner the consumer gives the pipeline: a trait's JavaScript
 * (`function evaluate(text)`) runs in the QuickJS sandbox (src/sandbox/), with its memory, time
 * and stack limits. Edge code (the engine is wasm); the core only sees CallableTraitPort.
 */
import type { CallableOutcome, CallableTraitPort } from "../rubric/types";
import { callInSandbox, type SandboxOptions } from "../sandbox/quickjs";

export function createCallableTraitRunner(options: SandboxOptions = {}): CallableTraitPort {
  return {
    async run({ source, text }): Promise<CallableOutcome> {
      const out = await callInSandbox(source, "evaluate", [text], options);
      return out.ok ? { ok: true, value: out.value } : { ok: false, error: `${out.kind}: ${out.error}` };
    },
  };
}
