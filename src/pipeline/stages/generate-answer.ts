/**
 * Stage 2 — GenerateAnswer. Calls the answering model once (or reads the caller's manual answer).
 * When the input already carries an answer (the job's checkpoint, shared by every judge of the
 * job) it is used as is and no call is made. Either way it then fixes what the template judges
 * read: the final AI message of a trace, or the full trace (`use_full_trace_for_template`).
 *
 * An agent cut off by its wall-time limit leaves a partial trace (`response_timeout_partial`).
 * With `allow_partial_trace_scoring` (Karenina's default, true) it is graded like any trace; with
 * false it is kept in the result but not scored: the job ends here with a timeout failure that
 * says so (never a content verdict), and it is not retried — a redelivery resumes the same
 * checkpoint, already past its deadline.
 */
import type { Message } from "../../llm/port";
import { resolveFewShotExamples } from "../few-shot";
import { instructionsFor } from "../../core-shared/instructions";
import { buildGenerationMessages } from "../prompts/generation";
import { stageErrorFromLlm } from "../llm-failure";
import { formatTrace, prepareEvaluationInput } from "../trace";
import { agentAnswer, agentLimits } from "../agent/answering-agent";
import type { AnswerArtifact, AnswerOutcome, PipelineInput, PipelinePorts, PipelineSettings, Stage, StageError } from "../types";

export const generateAnswer: Stage = {
  name: "generate_answer",
  shouldRun: (state) => !state.error,
  async run(_state, input, ports) {
    const outcome = input.answer ?? (await produceAnswer(input, ports));
    if (!outcome.ok) return { error: outcome.error };
    const { answer } = outcome;
    const evaluation = prepareEvaluationInput(
      answer.raw_llm_response,
      answer.is_trace ? answer.trace_messages : null,
      input.settings.use_full_trace_for_template ?? false,
    );
    const usage = answer.usage ? { answer_generation: answer.usage } : {};
    const refused = partialTraceRefused(answer, input);
    return { answer, evaluation, usage, ...(refused ? { error: refused } : {}) };
  },
};

/** Why a timed-out agent's partial trace is not scored, or null when it is. */
function partialTraceRefused(answer: AnswerArtifact, input: PipelineInput): StageError | null {
  if (answer.response_timeout_partial !== true || input.settings.allow_partial_trace_scoring !== false) return null;
  const seconds = agentLimits(input.answering).timeout_ms / 1000;
  const n = answer.trace_messages.length;
  return {
    category: "timeout",
    stage: "generate_answer",
    reason:
      `the answering agent reached its agent_timeout (${seconds} s) with a partial trace of ${n} message${n === 1 ? "" : "s"}; ` +
      "allow_partial_trace_scoring is false, so it is not scored",
    not_retried: true,
  };
}

export type AnswerRequest = Pick<PipelineInput, "question" | "answering" | "history"> & {
  settings?: Pick<PipelineSettings, "few_shot_config" | "prompt_config">;
};

/**
 * Produces the job's answer; exported so the job runner can checkpoint it before judging. A model
 * with MCP servers answers as a tool-using agent (src/pipeline/agent/answering-agent.ts).
 */
export async function produceAnswer(
  input: AnswerRequest,
  ports: Pick<PipelinePorts, "answerer" | "agentTools" | "agentCheckpoint" | "clock">,
): Promise<AnswerOutcome> {
  const { question, answering, settings, history } = input;
  if (answering.interface === "manual") return manualAnswer(question.id, answering.manual_answers);
  const messages = buildGenerationMessages(question.question, answering.system_prompt, {
    examples: resolveFewShotExamples(settings?.few_shot_config, question.id, question.few_shot_examples),
    instructions: instructionsFor(settings?.prompt_config, "generation"),
    ...(history ? { history } : {}),
  });
  if (answering.mcp_urls_dict) {
    return agentAnswer(answering, messages, {
      answerer: ports.answerer,
      agentTools: ports.agentTools,
      checkpoint: ports.agentCheckpoint,
      now: () => ports.clock.now(),
    });
  }
  const res = await ports.answerer.chat({ messages, call_site: "generate_answer" });
  if (!res.ok) {
    return { ok: false, error: stageErrorFromLlm("generate_answer", res.error, "answering model failed") };
  }
  return {
    ok: true,
    answer: {
      raw_llm_response: res.value.text,
      trace_messages: [...messages, { role: "assistant", content: res.value.text }],
      usage: res.value.usage,
    },
  };
}

/**
 * A manual answer is graded as if the caller's own system produced it. A string is the AI
 * message; a message list is a trace, recorded whole (Karenina's `--- AI Message ---` text) and
 * read by the judges as the guard stages and `use_full_trace_for_template` decide.
 */
function manualAnswer(questionId: string, answers: Record<string, string | Message[]> | undefined): AnswerOutcome {
  const given = answers?.[questionId];
  if (given === undefined) {
    return {
      ok: false,
      error: {
        category: "unexpected_error",
        stage: "generate_answer",
        reason: `manual model has no answer for question ${JSON.stringify(questionId)}`,
      },
    };
  }
  if (typeof given === "string") {
    return { ok: true, answer: { raw_llm_response: given, trace_messages: [], usage: null } };
  }
  return {
    ok: true,
    answer: { raw_llm_response: formatTrace(given), trace_messages: given, usage: null, is_trace: true },
  };
}
