/**
 * The code verifier the consumer gives the pipeline: runs a template's custom_verify source in the
 * engine for its language. Edge code (the JavaScript engine is wasm); the core only sees the
 * CodeVerifierPort.
 *   javascript → QuickJS sandbox (src/sandbox/)
 *   python     → the Python-subset interpreter (src/templates/python-subset/, pure TS)
 */
import { verifyJavaScript } from "../sandbox/js-verify";
import type { SandboxOptions } from "../sandbox/quickjs";
import type { CodeVerifierPort, CodeVerifyOutcome, CodeVerifyRequest } from "../templates/code-verify";
import { verifyPython } from "../templates/python-subset";

export interface CodeVerifierOptions {
  /** Sandbox limits and clock for JavaScript (tests shrink the memory cap and freeze the clock). */
  javascript?: SandboxOptions;
}

export function createCodeVerifier(options: CodeVerifierOptions = {}): CodeVerifierPort {
  return {
    async verify(req: CodeVerifyRequest): Promise<CodeVerifyOutcome> {
      switch (req.language) {
        case "javascript":
          return verifyJavaScript(req, options.javascript);
        case "python":
          return verifyPython(req);
      }
    },
  };
}
