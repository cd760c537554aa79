import { describe, expect, it } from "vitest";
import { runCompoundJudge } from "../../../src/judges";
import type { ModelPort } from "../../../src/llm/port";
import { JudgeConfig } from "../../../src/schemas/judge";
import { ModelConfig } from "../../../src/schemas/model-config";

// Verdict's Unit.via(model, retries, **inference_parameters) sends only what it is given (verdict/model.py:347-358,
// ModelSelectionPolicy.from_name keeps inference_parameters as passed), so an ensemble samples at the provider's
// default temperature. Karenina's parsing models default to 0.1 (schemas/config/models.py:572, `temperature: float = 0.1`).
const provider = { id: "j", interface: "openai_compatible", model_name: "judge", base_url: "http://fake.invalid/v1" };

function recordingPorts() {
  const seen: { config: ModelConfig; temperature: number | undefined }[] = [];
  const ports = {
    model(config: ModelConfig): ModelPort {
      const port = {
        identity: { interface: config.interface, model_name: config.model_name },
        async structured(req: any) {
          seen.push({ config, temperature: req.temperature ?? config.temperature });
          return {
            ok: true,
            value: {
              value: { answer: 4 },
              raw: "{}",
              usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2, model: config.model_name },
            },
          };
        },
      };
      return port as unknown as ModelPort;
    },
  };
  return { ports, seen };
}

describe("compound-judge temperature", () => {
  it("a judge's provider without temperature leaves it to the provider: repeat 3 sends no temperature at all", async () => {
    const { ports, seen } = recordingPorts();
    const cfg = JudgeConfig.parse({ provider, pipeline: [{ layer: { unit: { type: "likert" }, repeat: 3 } }, { type: "mean" }] });
    await runCompoundJudge(cfg, { input: "", output: "x", vars: {} }, ports);
    expect(seen).toHaveLength(3);
    for (const s of seen) {
      expect(s.config).not.toHaveProperty("temperature");
      expect(s.temperature).toBeUndefined();
    }
  });

  it("a unit's temperature, or the provider's own, is still sent", async () => {
    const { ports, seen } = recordingPorts();
    await runCompoundJudge(JudgeConfig.parse({ provider, type: "likert", temperature: 0.7 }), { input: "", output: "x", vars: {} }, ports);
    await runCompoundJudge(
      JudgeConfig.parse({ provider: { ...provider, temperature: 0.3 }, type: "likert" }),
      { input: "", output: "x", vars: {} },
      ports,
    );
    expect(seen.map((s) => s.temperature)).toEqual([0.7, 0.3]);
  });

  it("Karenina's model configs (answering / parsing) keep their 0.1 default", () => {
    expect(ModelConfig.parse(provider).temperature).toBe(0.1);
  });
});
