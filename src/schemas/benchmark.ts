/**
 * Benchmarks: edgeval's native JSON form of a Karenina benchmark (questions with their answer
 * template and optional rubric, plus a global rubric).
 *
 * A question without a template is valid for storage: only that question fails (stage 1,
 * `template_validation`) when a run needs a template, the rest of the benchmark still runs.
 * `questionsWithoutTemplate` lets the API warn about it at submit time.
 */
import { z } from "zod";
import { whenMissing } from "../lib/wire-issues";
import { Rubric, traitNames } from "./rubric";
import { AnswerTemplate } from "../templates/template-schema";
import { scenarioNodeSchema, scenarioSchema } from "../scenarios/scenario-schema";
import { conditionalGroundTruthIssues } from "../scenarios/conditional-ground-truth";

/** Accepts null (Karenina writes None) but hands consumers `undefined` only. */
const absentAsUndefined = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

const NonEmpty = (what: string) => z.string({ error: whenMissing(`${what} is required`) }).min(1, { error: `${what} must not be empty` });

export const FewShotExample = z.strictObject({
  question: NonEmpty("question"),
  answer: NonEmpty("answer"),
});

/** Relative, no `..` / `.` segments, no backslashes: a path inside the question's workspace. */
const WorkspacePath = z.string().regex(/^(?!\/)(?!.*\\)(?!(?:.*\/)?\.{1,2}(?:\/|$))[^\0]*[^/]$/, {
  error: "workspace file paths are relative, without '..' or '.' segments",
});
const MAX_WORKSPACE_BYTES = 1024 * 1024;

/**
 * edgeval's own field: text files an agentic rubric trait's agent may read, seeded into the
 * question's workspace (Karenina points at a directory on disk instead). At most 1 MB in all.
 */
const WorkspaceFiles = z
  .record(WorkspacePath, z.string())
  .refine((files) => Object.values(files).reduce((n, c) => n + c.length, 0) <= MAX_WORKSPACE_BYTES, {
    error: "workspace_files may hold at most 1 MB of text per question",
  });

export const Question = z.strictObject({
  id: NonEmpty("id"),
  question: NonEmpty("question"),
  raw_answer: z.string().nullish(),
  keywords: z.array(z.string(), { error: "keywords must be a list of strings" }).nullish(),
  few_shot_examples: z.array(FewShotExample).nullish(),
  custom_metadata: z.record(z.string(), z.unknown(), { error: "custom_metadata must be an object" }).nullish(),
  template: absentAsUndefined(AnswerTemplate),
  rubric: absentAsUndefined(Rubric),
  workspace_files: absentAsUndefined(WorkspaceFiles),
});
export type Question = z.output<typeof Question>;

/** A scenario node: its question, and ground truths that depend on earlier turns (src/scenarios). */
export const ScenarioNode = scenarioNodeSchema(Question).superRefine((node, ctx) => {
  for (const i of conditionalGroundTruthIssues(node.question.template, node.conditional_ground_truth ?? {})) {
    ctx.addIssue({ code: "custom", path: ["conditional_ground_truth", ...i.path], message: i.message });
  }
});
/** A multi-turn scenario (Karenina's ScenarioDefinition); `name` is its results' scenario_id. */
export const Scenario = scenarioSchema(ScenarioNode);
export type Scenario = z.output<typeof Scenario>;

export const Benchmark = z
  .strictObject({
    name: NonEmpty("name"),
    rubric: absentAsUndefined(Rubric),
    questions: z.array(Question, { error: "questions must be a list" }).min(1, { error: "a benchmark needs at least one question" }),
    /** Multi-turn scenarios (src/scenarios): each runs per answering model × parsing model × replicate. */
    scenarios: absentAsUndefined(z.array(Scenario, { error: "scenarios must be a list" })),
    /**
     * Karenina checkpoint data edgeval keeps but does not grade with (description, version,
     * dates, scenarios, per-question properties such as `finished`): written back on export.
     * Shape: src/karenina/README.md.
     */
    karenina: z.record(z.string(), z.unknown(), { error: "karenina must be an object" }).optional(),
  })
  // Runs even when a question is malformed, so duplicate ids are reported with the other problems.
  .check(
    z.superRefine((benchmark, ctx) => reportDuplicateIds((benchmark as { questions?: unknown } | undefined)?.questions, ctx), {
      // `when` also fires when the benchmark itself is missing or not an object: read defensively.
      when: (payload) => typeof payload.value === "object" && payload.value !== null,
    }),
  )
  .superRefine((benchmark, ctx) => {
    if (benchmark.rubric) checkRubricMerge(benchmark.rubric, benchmark.questions, ctx);
    reportDuplicateScenarios(benchmark.scenarios ?? [], ctx);
  });
export type Benchmark = z.output<typeof Benchmark>;
export type BenchmarkInput = z.input<typeof Benchmark>;

/** Reads ids defensively: the questions may not all have parsed. */
function reportDuplicateIds(questions: unknown, ctx: z.RefinementCtx): void {
  if (!Array.isArray(questions)) return;
  const first = new Map<string, number>();
  questions.forEach((q: unknown, i) => {
    const id = q && typeof q === "object" ? (q as { id?: unknown }).id : undefined;
    if (typeof id !== "string") return;
    const at = first.get(id);
    if (at !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["questions", i, "id"],
        message: `duplicate question id "${id}" (first used by questions[${at}])`,
      });
    } else first.set(id, i);
  });
}

/** A scenario's name is the scenario_id of its results: two with one name could not be told apart. */
function reportDuplicateScenarios(scenarios: readonly Scenario[], ctx: z.RefinementCtx): void {
  const first = new Map<string, number>();
  scenarios.forEach((s, i) => {
    const at = first.get(s.name);
    if (at !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["scenarios", i, "name"],
        message: `duplicate scenario name "${s.name}" (first used by scenarios[${at}])`,
      });
    else first.set(s.name, i);
  });
}

/** Karenina merges the global and question rubrics per question and refuses a duplicate name. */
function checkRubricMerge(global: Rubric, questions: Question[], ctx: z.RefinementCtx): void {
  const globalNames = new Set(traitNames(global).map((t) => t.name));
  questions.forEach((q, i) => {
    if (!q.rubric) return;
    for (const t of traitNames(q.rubric)) {
      if (globalNames.has(t.name)) {
        ctx.addIssue({
          code: "custom",
          path: ["questions", i, "rubric", t.kind, t.index, "name"],
          message: `trait "${t.name}" is already defined in the benchmark rubric; Karenina cannot merge two traits with one name`,
        });
      }
    }
  });
}

/** Why this question cannot be graded in a template mode, or null when it can. */
export function missingTemplateReason(question: Question): string | null {
  return question.template ? null : `question "${question.id}" has no answer template; template_only evaluation needs one`;
}

/** Ids of questions stored without a template (they will fail with template_validation). */
export function questionsWithoutTemplate(benchmark: Benchmark): string[] {
  return benchmark.questions.filter((q) => !q.template).map((q) => q.id);
}
