// The large run the benches submit: N questions × 2 `manual` answering models × 2 replicates,
// judged by one openai_compatible model on the fake LLM. Each model answers half the questions
// right and half wrong (the two on opposite halves); the answer carries a marker the fake's two
// rules (JUDGE_SCRIPT) turn into a deterministic parse, so exactly half of the results pass.

const RIGHT = "[[bench:right]]";
const WRONG = "[[bench:wrong]]";
export const ANSWERING = ["manual-even", "manual-odd"];

/** The fake LLM's rules for the judge. */
export const JUDGE_SCRIPT = {
  rules: [
    { match: { contains: WRONG }, reply: { json: { answer_is_right: false } } },
    { match: { contains: RIGHT }, reply: { json: { answer_is_right: true } } },
  ],
};

/** The run body; question i's right answer is 3·i + 7. */
export function manualRun(n, { judgeBaseUrl, judgeModel, name }) {
  const questions = [];
  const answers = Object.fromEntries(ANSWERING.map((id) => [id, {}]));
  for (let i = 0; i < n; i++) {
    const id = `bench-q${String(i).padStart(5, "0")}`;
    const truth = 3 * i + 7;
    questions.push({
      id,
      question: `A culture of strain ${i} doubles every cycle. How many colonies does plate ${i} hold after the standard protocol?`,
      template: {
        fields: [
          {
            name: "answer_is_right",
            type: "bool",
            description: "True if the response gives the correct colony count",
            ground_truth: true,
            verify_with: { type: "BooleanMatch" },
          },
        ],
      },
    });
    ANSWERING.forEach((mid, m) => {
      const right = i % 2 === m; // manual-even is right on even questions, manual-odd on odd ones
      answers[mid][id] = right ? `Plate ${i} holds ${truth} colonies. ${RIGHT}` : `Plate ${i} holds ${truth + 1} colonies. ${WRONG}`;
    });
  }
  const config = {
    answering_models: ANSWERING.map((id) => ({ id, interface: "manual", model_name: id, manual_answers: answers[id] })),
    parsing_models: [{ id: "judge", interface: "openai_compatible", model_name: judgeModel, base_url: judgeBaseUrl, temperature: 0 }],
    replicate_count: 2,
  };
  return { benchmark: { name: `${name} ${n} questions`, questions }, config, run_name: `${name} ${n}` };
}
