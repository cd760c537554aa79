/**
 * Stage 2 — GenerateAnswer. Calls the answering model once (or reads the caller's manual answer).
 * When the input already carries an answer (the job's checkpoint, shared by every judge of the
 * job) it is used as is and no call is made.
 */
import type { Message } from "../../llm/port";
import { buildGenerationMessages } from "../prompts/generation";
import { stageErrorFromLlm } from "../llm-failure";
import type { AnswerOutcome, PipelineInput, PipelinePorts, Stage } from "../types";

export const generateAnswer: Stage = {
  name: "generate_answer",
  shouldRun: (state) => !state.error,
  async run(_state, input, ports) {
    const outcome = input.answer ?? (await produceAnswer(input, ports));
    if (!outcome.ok) return { error: outcome.error };
    const usage = outcome.answer.usage;
    return { answer: outcome.answer, usage: usage ? { answer_generation: usage } : {} };
  },
};

/** Produces the job's answer; exported so the job runner can checkpoint it before judging. */
export async function produceAnswer(
  input: Pick<PipelineInput, "question" | "answering">,
  ports: Pick<PipelinePorts, "answerer">,
): Promise<AnswerOutcome> {
  const { question, answering } = input;
  if (answering.interface === "manual") return manualAnswer(question.id, answering.manual_answers);
  const messages = buildGenerationMessages(question.question, answering.system_prompt);
  const res = await ports.answerer.chat({ messages });
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

function manualAnswer(
  questionId: string,
  answers: Record<string, string | Message[]> | undefined,
): AnswerOutcome {
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
  // A trace: the judge reads the final AI message (use_full_trace_for_template = false).
  const finalAi = [...given].reverse().find((m) => m.role === "assistant");
  return {
    ok: true,
    answer: { raw_llm_response: finalAi?.content ?? "", trace_messages: given, usage: null },
  };
}
