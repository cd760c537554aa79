/**
 * Examples published in /openapi.json, taken from examples/basic so they are real inputs: each is
 * validated against its schema by test/unit/openapi/document.test.ts.
 */
import benchmark from "../../examples/basic/benchmark.json";
import config from "../../examples/basic/config.json";

/** Two questions of examples/basic: a boolean field and an integer one. */
export const EXAMPLE_BENCHMARK = { name: benchmark.name, questions: benchmark.questions.slice(0, 2) };

export const EXAMPLE_RUN_REQUEST = { benchmark: EXAMPLE_BENCHMARK, config, run_name: "examples/basic, two questions" };

const usage = (input: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
  cost_usd: null,
});
const pairUsage = {
  answering: usage(1200, 300),
  judging: { ...usage(2400, 200), per_stage: { parsing: usage(2400, 200) } },
  total: usage(3600, 500),
  unpriced_models: ["openai_compatible:edgeval-fake-alpha"],
};

export const EXAMPLE_RUN_STATUS = {
  run_id: "0b7f3c1e-5d2a-4c8e-9f10-2a3b4c5d6e7f",
  run_name: "examples/basic",
  benchmark_name: benchmark.name,
  status: "completed",
  progress: { total: 48, done: 48 },
  summary: [
    {
      answering_model: "alpha",
      parsing_model: "judge",
      total: 24,
      passed: 22,
      failed: 2,
      errored: 0,
      pass_rate: 22 / 24,
      usage: pairUsage,
      traits: {},
    },
  ],
  summary_total: 1,
  summary_next_url: null,
  usage: pairUsage,
  budget_usd: null,
  manifest: {
    edgeval_version: "0.1.0",
    prompt_versions: { parsing: "1" },
    models: [
      {
        id: "alpha",
        role: "answering",
        interface: "openai_compatible",
        model_name: "edgeval-fake-alpha",
        actual_models: ["edgeval-fake-alpha"],
      },
    ],
  },
  lineage: { parent_run_id: null, children: [], left_out: null, graded_afresh: null },
  created_at: "2026-11-24T12:00:00.000Z",
  finished_at: "2026-11-24T12:00:09.000Z",
};

export const EXAMPLE_JUDGE_REQUEST = {
  input: "Which anti-apoptotic protein does venetoclax directly inhibit?",
  output: "Venetoclax is a selective BCL-2 inhibitor.",
  reference: "BCL-2",
  config: { type: "likert", provider: config.parsing_models[0] },
};
