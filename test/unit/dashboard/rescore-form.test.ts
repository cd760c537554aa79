/** The Re-score form's fields as the API's body, and what the form says before it is sent. */
import { describe, expect, it } from "vitest";
import { RescoreForm, rescoreBodyFromForm, rescoreRefusal } from "../../../src/dashboard/rescore-form";
import type { RunSpec } from "../../../src/storage/run-spec";

const judge = {
  id: "j1",
  interface: "openai_compatible",
  model_name: "small",
  base_url: "http://127.0.0.1:9/v1",
  api_key_secret: "MY_KEY",
  temperature: 0,
};
const answerer = { id: "a1", interface: "openai", model_name: "gpt-small", api_key_secret: "OPENAI_KEY" };
const manual = { id: "human", interface: "manual", model_name: "manual", manual_answers: { q: "x" } };
const parent = { answering_models: [answerer, manual], parsing_models: [judge], replicate_count: 2 } as unknown as Pick<
  RunSpec,
  "answering_models" | "parsing_models" | "replicate_count"
>;

describe("re-score form", () => {
  it("copies the picked judge with the new model (its endpoint and key secret kept), the id defaulting to the model's name", () => {
    const built = rescoreBodyFromForm(
      { judge_base: "j1", judge_model_name: "large", judge_id: "", replicate_count: "2", run_name: "" },
      parent,
    );
    expect(built).toEqual({ ok: true, body: { parsing_models: [{ ...judge, id: "large", model_name: "large" }] } });
  });

  it("copies an answering model the same way; a manual one cannot be copied (and is not offered)", async () => {
    expect(rescoreBodyFromForm({ answer_base: "a1", answer_model_name: "gpt-large", answer_id: "big" }, parent)).toEqual({
      ok: true,
      body: { answering_models: [{ ...answerer, id: "big", model_name: "gpt-large" }] },
    });
    const human = rescoreBodyFromForm({ answer_base: "human", answer_model_name: "gpt-large" }, parent);
    expect(human.ok).toBe(false);
    if (!human.ok) expect(rescoreRefusal(human.issues)).toMatch(/^form answer_base: human is a manual model/);
    expect(rescoreRefusal([{ path: "answering_models[0].id", message: "taken" }])).toBe("form answer_id: taken");
    const html = String(await RescoreForm({ runId: "r1", spec: parent, scenarios: [] }).toString());
    expect(html).toContain('<option value="a1">');
    expect(html).not.toContain('<option value="human">');
  });

  it("sends replicates only when they differ from the run's, and refuses a form that adds nothing at judge_model_name", () => {
    expect(rescoreBodyFromForm({ judge_base: "j1", replicate_count: "3", run_name: "more" }, parent)).toEqual({
      ok: true,
      body: { replicate_count: 3, run_name: "more" },
    });
    const nothing = rescoreBodyFromForm({ judge_base: "j1", replicate_count: "2", run_name: "renamed" }, parent);
    expect(nothing.ok).toBe(false);
    if (!nothing.ok)
      expect(rescoreRefusal(nothing.issues)).toBe(
        "form judge_model_name: nothing to re-score: give a new judge's or answering model's model name, or more replicates than the run's 2",
      );
  });

  it("names the API's paths as the form's fields", () => {
    expect(
      rescoreRefusal([
        { path: "parsing_models[0].id", message: "taken" },
        { path: "parsing_models[0].temperature", message: "too hot" },
        { path: "replicate_count", message: "fewer" },
        { path: "(body)", message: "too many jobs" },
      ]),
    ).toBe("form judge_id: taken; form judge_model_name: too hot; form replicate_count: fewer; too many jobs");
  });

  it("says before it is sent that the run's scenarios will not be re-scored", async () => {
    const html = String(await RescoreForm({ runId: "r1", spec: parent, scenarios: ["pushback", "refund"] }).toString());
    expect(html).toContain("This run&#39;s 2 scenarios (pushback, refund) will not be re-scored");
    expect(String(await RescoreForm({ runId: "r1", spec: parent, scenarios: [] }).toString())).not.toContain("rescore-left-out");
  });

  it("says before it is sent how many results the run lacks, which a re-score answers afresh", async () => {
    const html = String(await RescoreForm({ runId: "r1", spec: parent, scenarios: [], recorded: { stored: 3, expected: 8 } }).toString());
    expect(html).toContain("This run recorded 3 of its 8 results: a re-score answers and grades the 5 missing ones");
    const whole = String(await RescoreForm({ runId: "r1", spec: parent, scenarios: [], recorded: { stored: 8, expected: 8 } }).toString());
    expect(whole).not.toContain("rescore-afresh");
  });
});
