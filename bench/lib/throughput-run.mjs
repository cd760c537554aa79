// bench/throughput's run, for the benches that stand beside it: the body it submits (bench/floor
// grades the same run with the least work a result can take; bench/scale-model measures its bytes),
// and running a tree's bench/throughput as a child process (bench/cpu-compare, bench/floor).
import { spawn } from "node:child_process";
import path from "node:path";
import { nodeBinary } from "../../scripts/lib/wrangler-process.mjs";

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

/** One run of `dir`'s bench/throughput with `args`; its output is kept whole so a failure can be shown. */
export function throughputOnce(dir, args) {
  return new Promise((resolve) => {
    const child = spawn(nodeBinary(), [path.join(dir, "bench/throughput.mjs"), ...args], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => resolve({ code, out }));
  });
}
