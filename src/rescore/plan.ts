/**
 * A re-scored child run's spec from its parent's (pure): the parent's questions, models and
 * settings with the request's additions appended (so the parent's job ids `q.a.r` name the same
 * jobs in the child), the added traits merged into the global rubric, and `rescore` naming the
 * parent and the new traits. New models are checked as planRun checks a run's (ids, manual answers,
 * keys and where they may go); a refusal is field issues, nothing is written.
 */
import type { FieldIssue } from "../schemas/field-issue";
import { modelKeyIssues } from "../llm/model-keys";
import { temperatureIssues } from "../llm/temperature-range";
import type { RescoreRequest } from "../schemas/rescore";
import { RUBRIC_LISTS, type Rubric, traitNames } from "../schemas/rubric";
import { DEFAULT_ANSWERING_SYSTEM_PROMPT } from "../schemas/verification-config";
import type { RunSpec } from "../storage/run-spec";
import { MAX_RESULTS_PER_RUN } from "../submit/plan";
import { modelsInRubrics } from "../submit/rubric-models";
import { jobIds } from "../submit/spec";
import type { KeyRing } from "../tenants/key-ring";

export type RescorePlan =
  | { ok: true; spec: RunSpec; jobIds: string[]; newTraits: string[]; leftOutScenarios: string[] }
  | { ok: false; issues: FieldIssue[] };

export function planRescore(
  parent: RunSpec,
  req: RescoreRequest,
  ids: { run_id: string; created_at: string },
  ring: KeyRing,
  advice: (name: string) => string,
): RescorePlan {
  const issues: FieldIssue[] = [];
  const added = { answering_models: req.answering_models ?? [], parsing_models: req.parsing_models ?? [] };
  for (const list of ["answering_models", "parsing_models"] as const) {
    const taken = new Set(parent[list].map((m) => m.id));
    added[list].forEach((m, i) => {
      if (taken.has(m.id))
        issues.push({
          path: `${list}[${i}].id`,
          message: `the run already has ${list === "answering_models" ? "an answering" : "a parsing"} model "${m.id}"; a new model needs a new id`,
        });
      taken.add(m.id);
      const keys = modelKeyIssues(m, { model: `${list}[${i}]`, base_url: `${list}[${i}].base_url` }, ring, advice);
      issues.push(...temperatureIssues(m, `${list}[${i}]`), ...keys.misdirected, ...keys.unset);
    });
  }
  added.parsing_models.forEach((m, i) => {
    if (m.interface === "manual")
      issues.push({ path: `parsing_models[${i}].interface`, message: "a manual model cannot judge: parsing models must call an LLM" });
  });
  added.answering_models.forEach((m, i) => {
    if (m.interface !== "manual") return;
    const missing = parent.questions.filter((q) => m.manual_answers?.[q.id] === undefined).map((q) => q.id);
    if (missing.length)
      issues.push({
        path: `answering_models[${i}].manual_answers`,
        message: `no answer for ${missing.length} question(s) of the run: ${missing
          .slice(0, 5)
          .map((q) => JSON.stringify(q))
          .join(", ")}`,
      });
  });
  const replicates = req.replicate_count ?? parent.replicate_count;
  if (replicates < parent.replicate_count)
    issues.push({
      path: "replicate_count",
      message: `the run has ${parent.replicate_count} replicates; a re-score keeps them all (send ${parent.replicate_count} or more)`,
    });

  const global = parent.settings.global_rubric ?? null;
  const known = new Set(
    [global, ...parent.questions.map((q) => q.rubric ?? null)].flatMap((r) => (r ? traitNames(r).map((t) => t.name) : [])),
  );
  const newTraits = req.rubric ? traitNames(req.rubric).map((t) => t.name) : [];
  newTraits.forEach((name) => {
    if (known.has(name)) issues.push({ path: "rubric", message: `the run already has a trait "${name}"; added traits need new names` });
  });
  // Fields that add nothing (the parent's replicate count, a rubric without traits) would start a
  // child that copies the parent whole: refused at the field sent, as an empty body is.
  const addsNothing =
    added.answering_models.length === 0 &&
    added.parsing_models.length === 0 &&
    replicates === parent.replicate_count &&
    newTraits.length === 0;
  if (addsNothing)
    issues.push({
      path: req.replicate_count !== undefined ? "replicate_count" : req.rubric ? "rubric" : "(body)",
      message: `this re-score adds nothing: the run already has ${parent.replicate_count} replicate(s)${req.rubric ? " and the rubric sent has no traits" : ""}; send a replicate_count above ${parent.replicate_count}, new answering_models or parsing_models, or rubric traits`,
    });
  // Models inside the added traits (compound judges' providers, agentic overrides), as planRun checks a rubric's.
  const rubricModels = req.rubric
    ? modelsInRubrics({ rubric: req.rubric, questions: [] }).map((m) => ({ ...m, path: m.path.replace(/^benchmark\.rubric/, "rubric") }))
    : [];
  for (const { model, path } of rubricModels) {
    const keys = modelKeyIssues(model, { model: path, base_url: `${path}.base_url` }, ring, advice);
    issues.push(...temperatureIssues(model, path), ...keys.misdirected, ...keys.unset);
  }

  const answering = [
    ...parent.answering_models,
    ...added.answering_models.map((m) => (m.system_prompt ? m : { ...m, system_prompt: DEFAULT_ANSWERING_SYSTEM_PROMPT })),
  ];
  const parsing = [...parent.parsing_models, ...added.parsing_models];
  const total = parent.questions.length * answering.length * replicates * parsing.length;
  if (total > MAX_RESULTS_PER_RUN)
    issues.push({ path: "(body)", message: `the re-scored run would hold ${total} results; the limit is ${MAX_RESULTS_PER_RUN} per run` });
  if (issues.length) return { ok: false, issues };

  const settings = { ...parent.settings, replicate_count: replicates };
  if (req.rubric) {
    settings.global_rubric = global ? mergeRubrics(global, req.rubric) : req.rubric;
    // As planRun: a template_only run with traits is graded template_and_rubric.
    if (settings.evaluation_mode === "template_only") settings.evaluation_mode = "template_and_rubric";
    if (settings.rubric_trait_names) settings.rubric_trait_names = [...settings.rubric_trait_names, ...newTraits];
  }
  // A scenario's turns are not re-scored: each depends on the answers before it, so reusing them
  // means re-running the chain; the child covers the run's questions, and the 202 names what it
  // left out (src/rescore/README.md).
  const { budget_usd: _parentBudget, rescore: _grandparent, scenarios: _scenarios, scenario_turn_limit: _turnLimit, ...inherited } = parent;
  const spec: RunSpec = {
    ...inherited,
    run_id: ids.run_id,
    run_name:
      req.run_name ?? (parent.run_name ? defaultName(parent.run_name, added, replicates - parent.replicate_count, newTraits) : null),
    created_at: ids.created_at,
    answering_models: answering,
    parsing_models: parsing,
    replicate_count: replicates,
    settings,
    rescore: { parent_run_id: parent.run_id, new_traits: newTraits },
  };
  const leftOutScenarios = (parent.scenarios ?? []).map((s) => s.name);
  return { ok: true, spec, jobIds: jobIds(spec), newTraits, leftOutScenarios };
}

/**
 * "<parent> (re-scored: + judge j2, + 1 replicate)": what the child adds, so two re-scores of one
 * run differ in the runs list and the compare picker; cut to run_name's 200 characters.
 */
function defaultName(
  parentName: string,
  added: { answering_models: { id: string }[]; parsing_models: { id: string }[] },
  moreReplicates: number,
  traits: string[],
): string {
  const parts = [
    ...added.parsing_models.map((m) => `+ judge ${m.id}`),
    ...added.answering_models.map((m) => `+ answering ${m.id}`),
    ...(moreReplicates > 0 ? [`+ ${moreReplicates} replicate${moreReplicates === 1 ? "" : "s"}`] : []),
    ...(traits.length ? [`+ trait${traits.length === 1 ? "" : "s"} ${traits.join(", ")}`] : []),
  ];
  const name = `${parentName} (re-scored: ${parts.join(", ")})`;
  return name.length <= 200 ? name : `${name.slice(0, 199)}…`;
}

function mergeRubrics(a: Rubric, b: Rubric): Rubric {
  const out = { ...a };
  for (const k of RUBRIC_LISTS) (out as Record<string, unknown>)[k] = [...a[k], ...b[k]];
  return out;
}
