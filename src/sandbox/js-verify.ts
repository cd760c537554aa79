/**
 * Custom verify in JavaScript: `source` defines `function verify(answer, ground_truth, context)`
 * (answer = the judge's parsed fields, context = {raw_trace}); what it returns is read by the
 * contract every language shares (`interpretVerifyReturn`). Runs in the QuickJS sandbox.
 */
import { type CodeVerifyOutcome, type CodeVerifyRequest, interpretVerifyReturn } from "../templates/code-verify";
import { callInSandbox, type SandboxOptions } from "./quickjs";

export async function verifyJavaScript(req: CodeVerifyRequest, options: SandboxOptions = {}): Promise<CodeVerifyOutcome> {
  const out = await callInSandbox(req.source, "verify", [req.parsed, req.ground_truth, { raw_trace: req.raw_trace }], options);
  return out.ok ? interpretVerifyReturn(out.value) : { ok: false, error: out.error };
}
