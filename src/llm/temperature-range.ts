/**
 * The temperatures a provider takes, as its API reference documents them: OpenAI's chat
 * completions 0 to 2, Anthropic's messages 0 to 1. A model configured outside its range would have
 * every call refused with a 400 (`bad_request`, never retried): every result of the run an error,
 * each call paid for in time. So a run, a re-score and a /v1/judge request that name one are
 * refused up front, at the model's `temperature`. OpenAI-compatible servers and Workers AI models
 * take ranges of their own (often wider): not checked.
 */
import type { FieldIssue } from "../schemas/field-issue";
import type { Interface, ModelConfig } from "../schemas/model-config";

const MAX_TEMPERATURE: Partial<Record<Interface, number>> = { openai: 2, anthropic: 1 };

/** The issue at `${path}.temperature` when the model's provider does not take its temperature, else none. */
export function temperatureIssues(model: Pick<ModelConfig, "interface" | "temperature">, path: string): FieldIssue[] {
  const max = MAX_TEMPERATURE[model.interface];
  if (max === undefined || model.temperature === undefined || model.temperature <= max) return [];
  return [
    {
      path: `${path}.temperature`,
      message: `interface "${model.interface}" takes a temperature from 0 to ${max} (got ${model.temperature}); the provider would refuse every call`,
    },
  ];
}
