/**
 * Stages 3 and 4 — the guards that fail an answer outright (Karenina's autofail group). Neither
 * calls a model, and neither is an error: `completed_without_errors` stays true, the trace and
 * tokens are kept, and later stages skip as the spec's cascade says.
 *
 * 3 RecursionLimitAutoFail: the answering agent stopped at its turn limit.
 * 4 TraceValidationAutoFail: a trace (edgeval: a caller's message trace) must end with an AI
 *   message holding the final answer; otherwise there is nothing trustworthy to grade.
 */
import { logOverride } from "../overrides";
import { extractFinalAiMessage } from "../trace";
import type { Stage } from "../types";

export const recursionLimitAutoFail: Stage = {
  name: "recursion_limit_autofail",
  shouldRun: (state) => !state.error && state.answer?.recursion_limit_reached === true,
  async run(_state, input, ports) {
    const reason = "the answering agent reached its recursion limit before finishing";
    logOverride(ports, input, "recursion_limit_autofail", false, reason);
    return { autofail: { category: "recursion_limit", stage: "recursion_limit_autofail", reason } };
  },
};

export const traceValidationAutoFail: Stage = {
  name: "trace_validation_autofail",
  shouldRun: (state) => !state.error && !state.autofail && state.answer?.is_trace === true,
  async run(state, input, ports) {
    const final = extractFinalAiMessage(state.answer!.trace_messages);
    if (final.ok) return {};
    const reason = `trace validation failed: ${final.error}`;
    logOverride(ports, input, "trace_validation_autofail", false, reason);
    return { autofail: { category: "trace_validation", stage: "trace_validation_autofail", reason } };
  },
};
