/**
 * The run page's Re-score form (src/rescore/README.md): the common re-scores of POST /v1/runs/:id/rescore
 * from a browser. A new judge (or answering model) is one of the run's with another model (and id): its
 * interface, endpoint, key secret and settings are copied, so no key or URL is typed into a page. More
 * replicates and a name complete it. The form's fields become the API's body (one schema, `RescoreFormFields`), and a
 * refusal names the form's fields, not the body's paths.
 */
import { z } from "zod";
import type { FieldIssue } from "../schemas/field-issue";
import type { RescoreRequest } from "../schemas/rescore";
import type { RunSpec } from "../storage/run-spec";
import { DASHBOARD } from "./guard";

/** What the form posts; every field may come empty (an empty field adds nothing). */
export const RescoreFormFields = z.strictObject({
  judge_base: z.string().max(200).optional(),
  judge_model_name: z.string().trim().max(300).optional(),
  judge_id: z.string().trim().max(200).optional(),
  answer_base: z.string().max(200).optional(),
  answer_model_name: z.string().trim().max(300).optional(),
  answer_id: z.string().trim().max(200).optional(),
  replicate_count: z
    .string()
    .trim()
    .regex(/^\d{0,4}$/, "a whole number of replicates")
    .optional(),
  run_name: z.string().trim().max(200).optional(),
});
export type RescoreFormFields = z.output<typeof RescoreFormFields>;

type Built = { ok: true; body: RescoreRequest } | { ok: false; issues: FieldIssue[] };
type Parent = Pick<RunSpec, "answering_models" | "parsing_models" | "replicate_count">;
type Model = RunSpec["parsing_models"][number];

/** The two kinds of model the form adds, each a copy of one of the run's with another model name. */
const ROLES = {
  judge: { list: "parsing_models", what: "judge", base: "judge_base", name: "judge_model_name", id: "judge_id" },
  answerer: { list: "answering_models", what: "answering model", base: "answer_base", name: "answer_model_name", id: "answer_id" },
} as const;

/**
 * The copy of the picked model with the new model name (null: none asked for). The id defaults to
 * the model's name, so the summary's new column says which model it is.
 */
function copiedModel(role: (typeof ROLES)[keyof typeof ROLES], form: RescoreFormFields, models: readonly Model[], issues: FieldIssue[]): Model | null {
  const modelName = form[role.name] || "";
  if (!modelName) {
    if (form[role.id]) issues.push({ path: role.name, message: `give the new ${role.what}'s model name (the id alone adds nothing)` });
    return null;
  }
  const base = models.find((m) => m.id === form[role.base]);
  if (!base) {
    issues.push({ path: role.base, message: `pick one of the run's ${role.what}s to copy (${models.map((m) => m.id).join(", ") || "it has none"})` });
    return null;
  }
  if (base.interface === "manual") {
    issues.push({ path: role.base, message: `${base.id} is a manual model (recorded answers, no LLM): copy one that calls a model` });
    return null;
  }
  return { ...base, id: form[role.id] || modelName, model_name: modelName };
}

/** The form's fields as the API's body, checked against the parent (its models, its replicates). */
export function rescoreBodyFromForm(form: RescoreFormFields, parent: Parent): Built {
  const issues: FieldIssue[] = [];
  const body: RescoreRequest = {};
  const judge = copiedModel(ROLES.judge, form, parent.parsing_models, issues);
  if (judge) body.parsing_models = [judge];
  const answerer = copiedModel(ROLES.answerer, form, parent.answering_models, issues);
  if (answerer) body.answering_models = [answerer];
  const replicates = form.replicate_count ? Number(form.replicate_count) : parent.replicate_count;
  // The run's own count adds nothing: sent only when it differs (fewer is the API's 400 at the field).
  if (replicates !== parent.replicate_count) body.replicate_count = replicates;
  if (form.run_name) body.run_name = form.run_name;
  if (!issues.length && !body.parsing_models && !body.answering_models && body.replicate_count === undefined)
    issues.push({
      path: "judge_model_name",
      message: `nothing to re-score: give a new judge's or answering model's model name, or more replicates than the run's ${parent.replicate_count}`,
    });
  return issues.length ? { ok: false, issues } : { ok: true, body };
}

/** The API's field paths (RescoreRequest) as the form's field names, for a refusal's page (a form field's stays). */
export function formFieldOf(path: string): string {
  if (path in RescoreFormFields.shape) return path;
  for (const role of Object.values(ROLES)) {
    if (path === `${role.list}[0].id`) return role.id;
    if (path.startsWith(`${role.list}[0]`)) return role.name;
  }
  return "(form)";
}

export function rescoreRefusal(issues: readonly FieldIssue[]): string {
  return issues
    .map((i) => {
      const field = formFieldOf(i.path);
      // A refusal of the whole re-score (too many jobs or results) is no one field's.
      return field === "(form)" ? i.message : `form ${field}: ${i.message}`;
    })
    .join("; ");
}

/**
 * On a finished run's page, for a key with runs:write. Said up front: the run's scenarios, which a
 * re-score leaves out (the API's 202 `left_out`), and the results the run lacks, which it answers afresh.
 */
export function RescoreForm(props: {
  runId: string;
  spec: Parent;
  scenarios: readonly string[];
  /** The run's question results recorded and planned: what it lacks is answered afresh (the API's 202 `graded_afresh`). */
  recorded?: { stored: number; expected: number };
}) {
  const { spec, recorded } = props;
  // A manual answering model records answers: only models that call an LLM can be copied with another model.
  const callers = spec.answering_models.filter((m) => m.interface !== "manual");
  const missing = recorded ? recorded.expected - recorded.stored : 0;
  return (
    <form id="rescore-form" method="post" action={`${DASHBOARD}/runs/${props.runId}/rescore`}>
      <p>
        A new run that re-uses this run's answers: a new judge grades them without answering again, a new answering model answers every
        question (graded by every judge), and more replicates answer only the new ones. You land on the new run's page.
      </p>
      <fieldset>
        <legend>New judge</legend>
        <label for="judge_base">Copy the judge</label>{" "}
        <select id="judge_base" name="judge_base">
          {spec.parsing_models.map((m) => (
            <option value={m.id}>
              {m.id} ({m.interface} {m.model_name})
            </option>
          ))}
        </select>{" "}
        <label for="judge_model_name">New judge's model</label> <input id="judge_model_name" name="judge_model_name" size={30} />{" "}
        <label for="judge_id">New judge's id (default: its model)</label> <input id="judge_id" name="judge_id" size={20} />
      </fieldset>
      {callers.length > 0 && (
        <fieldset>
          <legend>New answering model</legend>
          <label for="answer_base">Copy the answering model</label>{" "}
          <select id="answer_base" name="answer_base">
            {callers.map((m) => (
              <option value={m.id}>
                {m.id} ({m.interface} {m.model_name})
              </option>
            ))}
          </select>{" "}
          <label for="answer_model_name">New answering model's model</label> <input id="answer_model_name" name="answer_model_name" size={30} />{" "}
          <label for="answer_id">New answering model's id (default: its model)</label> <input id="answer_id" name="answer_id" size={20} />
        </fieldset>
      )}
      <p>
        <label for="replicate_count">Replicates</label>{" "}
        <input id="replicate_count" name="replicate_count" type="number" min={spec.replicate_count} max={1000} value={String(spec.replicate_count)} />{" "}
        <label for="rescore_run_name">New run's name</label> <input id="rescore_run_name" name="run_name" size={30} maxlength={200} />
      </p>
      {props.scenarios.length > 0 && (
        <p id="rescore-left-out" role="note">
          This run's {props.scenarios.length === 1 ? "scenario" : `${props.scenarios.length} scenarios`} ({props.scenarios.join(", ")}) will
          not be re-scored: each turn depends on the answers before it. Submit the benchmark again to grade them with another judge.
        </p>
      )}
      {missing > 0 && recorded && (
        <p id="rescore-afresh" role="note">
          This run recorded {recorded.stored} of its {recorded.expected} results: a re-score answers and grades the {missing} missing ones
          afresh, with answering calls and every judge, as a new run would.
        </p>
      )}
      <button type="submit">Re-score</button>
    </form>
  );
}
