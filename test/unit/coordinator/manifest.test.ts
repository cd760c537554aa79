import { describe, expect, it } from "vitest";
import pkg from "../../../package.json";
import { runManifest, withActualModels } from "../../../src/coordinator/manifest";
import { PROMPTS_VERSION } from "../../../src/judges/prompts";
import { PARSING_PROMPT_VERSION } from "../../../src/pipeline/prompts/parsing";

const m = (id: string) => ({ id, interface: "openai", model_name: `${id}-name`, temperature: 0, max_tokens: 10 });
const spec = (settings: object, questions: object[] = [{ id: "q" }]) =>
  ({
    answering_models: [m("a")],
    parsing_models: [m("p")],
    settings: { evaluation_mode: "template_only", ...settings },
    questions,
  }) as never;

describe("runManifest", () => {
  it("names edgeval's version and only the prompt families the settings use", () => {
    expect(runManifest(spec({}))).toMatchObject({ edgeval_version: pkg.version, prompt_versions: { parsing: PARSING_PROMPT_VERSION } });
    expect(runManifest(spec({ evaluation_mode: "rubric_only" })).prompt_versions).toEqual({});
    const compound = runManifest(spec({}, [{ id: "q", rubric: { compound_traits: [{ name: "c" }] } }]));
    expect(compound.prompt_versions).toEqual({ parsing: PARSING_PROMPT_VERSION, judges: PROMPTS_VERSION });
  });

  it("gives each model the names its provider reported, the embedding check's model not counted as the judge's", () => {
    const rows = [
      { answering_id: "a", parsing_id: "", stage: "answer_generation", model: "openai:a-name-0613" },
      { answering_id: "a", parsing_id: "p", stage: "parsing", model: "openai:p-name-2025" },
      { answering_id: "a", parsing_id: "p", stage: "embedding_check", model: "openai:text-embedding-3-small" },
    ];
    expect(withActualModels(runManifest(spec({})), rows).models).toEqual([
      { id: "a", role: "answering", interface: "openai", model_name: "a-name", actual_models: ["a-name-0613"] },
      { id: "p", role: "parsing", interface: "openai", model_name: "p-name", actual_models: ["p-name-2025"] },
    ]);
  });
});
