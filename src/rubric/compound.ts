/**
 * Compound traits (issue 7): the judge graph runs on {input: question, output: answer,
 * reference: raw answer when include_ground_truth}; its pooled value is the trait's score and the
 * unit-by-unit trace is kept with the result. A unit without a provider uses the run's parsing model.
 */
import { runCompoundJudge } from "../judges";
import type { JudgePorts } from "../judges/types";
import type { ModelConfig } from "../schemas/model-config";
import type { CompoundRubricTrait } from "../schemas/rubric";
import type { CompoundTrace } from "./types";

export async function evaluateCompoundTrait(
  t: CompoundRubricTrait,
  sample: { question: string; answer: string; reference: string | null },
  parsing: ModelConfig,
  ports: JudgePorts,
): Promise<
  | {
      score: number | null;
      trace: CompoundTrace;
      usage: { input_tokens: number; output_tokens: number; total_tokens: number; models: string[] };
    }
  | { error: string }
> {
  const config = t.config.provider ? t.config : { ...t.config, provider: parsing };
  try {
    const out = await runCompoundJudge(
      config,
      {
        input: sample.question,
        output: sample.answer,
        ...(t.include_ground_truth && sample.reference ? { reference: sample.reference } : {}),
        vars: {},
      },
      { ...ports, scope: `rubric/compound/${t.name}` },
    );
    const trace: CompoundTrace = {
      pass: out.pass,
      score: out.score,
      threshold: out.threshold,
      reason: out.reason,
      units: out.units,
      ...(out.error ? { error: out.error } : {}),
    };
    return { score: out.score, trace, usage: out.usage };
  } catch (e) {
    return { error: `compound trait ${t.name}: ${e instanceof Error ? e.message : String(e)}` };
  }
}
