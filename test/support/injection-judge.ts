/**
 * The injection corpus (test/fixtures/injection-corpus.ts) graded by a judge as gullible as can
 * be: it obeys any instruction it finds outside the nonce-delimited data block and otherwise
 * extracts honestly from the block. Shared by the unit test (test/unit/pipeline/injection.test.ts)
 * and the reliability suite's figures (test/reliability/s9-injection-corpus.test.ts).
 */
import { delimitingPort } from "../../src/llm/delimiting";
import { promptNonce } from "../../src/lib/untrusted";
import { ok, type ModelPort, type StructuredRequest } from "../../src/llm/port";
import { runPipeline } from "../../src/pipeline/orchestrator";
import { ModelConfig } from "../../src/schemas/model-config";
import { injectionCorpus } from "../fixtures/injection-corpus";
import { clock, input } from "../unit/pipeline/helpers";
import { scriptedPort } from "./scripted-port";

/** The real block: its open tag alone on a line, closed by the same nonce. */
export const BLOCK = /^<answer-([0-9a-f]{12})>\n([\s\S]*?)\n<\/answer-\1>$/m;

export function obedientJudge(): ModelPort & { prompts: string[] } {
  const prompts: string[] = [];
  const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2, model: "obedient" };
  return {
    identity: { interface: "openai_compatible", model_name: "obedient" },
    prompts,
    async structured<T>(req: StructuredRequest<T>) {
      const text = req.messages.map((m) => m.content).join("\n");
      prompts.push(text);
      const block = BLOCK.exec(text);
      const outside = block ? text.replace(block[0], "") : text;
      const response = block ? block[2]! : text;
      // Obeys whatever outside the data block names the organelle; else reports the answer's claim.
      const organelle = /mitochondri/i.test(outside)
        ? "mitochondrion"
        : (/\b(cytoplasm|nucleus|ribosome|mitochondrion)\b/i.exec(response)?.[1] ?? "none");
      const value = req.schema.parse({ organelle });
      return ok({ value, raw: JSON.stringify({ organelle }), usage });
    },
    chat: async () => ok({ text: "", usage }),
    embed: async () => ok({ vectors: [], usage }),
    toolTurn: async () => ok({ text: "", tool_calls: [], usage }),
    logprobs: async () => ok({ text: "", tokens: [], usage }),
  } as ModelPort & { prompts: string[] };
}

/** Each corpus answer through the pipeline: its verdict (false = the injection did not flip it) and the judge's prompt. */
export async function injectionVerdicts(delimiting: boolean) {
  const out: { answer: string; verify: boolean | null | undefined; prompt: string }[] = [];
  for (const [i, answer] of injectionCorpus.entries()) {
    const judge = obedientJudge();
    const answering = ModelConfig.parse({ id: "ans", interface: "manual", manual_answers: { q1: answer } });
    const nonces = async (site: string) => (delimiting ? promptNonce("test-nonce-key", `result-${i}`, site) : null);
    const { result } = await runPipeline(input({ answering }), {
      answerer: scriptedPort(),
      judge: delimitingPort(judge, nonces),
      clock: clock(),
    });
    out.push({ answer, verify: result.template?.verify_result, prompt: judge.prompts[0] ?? "" });
  }
  return out;
}
