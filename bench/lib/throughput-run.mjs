// The run bench/throughput submits, shared with bench/floor (which grades the same run with the
// least work a result can take): N questions × one answering model × one parsing model, both
// openai_compatible on the fake LLM.

export const MODEL = "tp-model";
/** Model calls per job (answer, then parse) … */
export const M = 2;
/** … all of them on the job's critical path. */
export const K = 2;

export function buildRun(n, baseUrl, secretName) {
  const questions = Array.from({ length: n }, (_, i) => ({
    id: `tp-${i}`,
    question: `What is ${i} plus ${i}?`,
    // The fake's default structured reply fills a boolean with true: every result passes.
    template: {
      fields: [
        {
          name: "answer_is_right",
          type: "bool",
          description: "True if the response gives the right sum",
          ground_truth: true,
          verify_with: { type: "BooleanMatch" },
        },
      ],
    },
  }));
  const model = (id, model_name) => ({
    id,
    interface: "openai_compatible",
    model_name,
    base_url: baseUrl,
    temperature: 0,
    ...(secretName ? { api_key_secret: secretName } : {}),
  });
  return {
    run_name: `bench:throughput ${n}`,
    benchmark: { name: `bench:throughput ${n} jobs`, questions },
    config: { answering_models: [model("answer", MODEL)], parsing_models: [model("judge", MODEL)], replicate_count: 1 },
  };
}
