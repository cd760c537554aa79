/**
 * The code verifier the consumer gives the pipeline: runs a template's custom_verify source in the
 * right engine for its language. Edge code (the JavaScript engine is wasm); the core only sees the
 * CodeVerifierPort.
 */
import type { CodeVerifierPort, CodeVerifyOutcome, CodeVerifyRequest } from "../templates/code-verify";

export function createCodeVerifier(): CodeVerifierPort {
  return {
    async verify(req: CodeVerifyRequest): Promise<CodeVerifyOutcome> {
      switch (req.language) {
        case "javascript":
          return { ok: false, error: "javascript verify is not available yet" };
        case "python":
          return { ok: false, error: "python verify is not available yet" };
      }
    },
  };
}
