/**
 * Stage 11b — AgenticRubricEvaluation. Evaluates the merged rubric's agentic traits (global +
 * question) with an investigation agent each ("individual") or one for all ("shared"); see
 * src/rubric/agentic. Runs after stage 12 and before FinalizeResult; needs only the answer.
 *
 * The question's `workspace_files` (benchmark-supplied) are written into its workspace first.
 * Trace materialization: when any trait asks for it and the question has a workspace, the
 * answering trace is written once into the workspace under `.karenina/traces/` before the
 * agents run, and deleted afterwards unless some trait sets `persist_trace`. Without a
 * workspace the trace is shown inline instead (with a warning).
 * A trait's `model_override` (a model config) runs its agent on that model through the job's model
 * ports; an override that is not a valid model config is skipped with a warning.
 */
import type { ModelPort } from "../../llm/port";
import { ModelConfig } from "../../schemas/model-config";
import { evaluateAgenticTraits } from "../../rubric/agentic/evaluate";
import type { AgenticTrait, WorkspacePort } from "../../rubric/agentic/types";
import { warn } from "../overrides";
import type { PipelineInput, PipelinePorts, Stage, StagePatch } from "../types";

export function agenticTraitsOf(input: PipelineInput): AgenticTrait[] {
  const all = [
    ...(input.settings.global_rubric?.agentic_traits ?? []),
    ...(input.question.rubric?.agentic_traits ?? []),
  ] as unknown as AgenticTrait[];
  const only = input.settings.rubric_trait_names;
  return only ? all.filter((t) => only.includes(t.name)) : all;
}

/** One file per job (run, models, replicate): jobs of one question share its workspace. */
export function traceFilePath(input: PipelineInput): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, "_");
  return `.karenina/traces/trace_${safe(input.question.id)}_${safe(input.run_id)}_${safe(input.answering.id)}_${safe(input.parsing.id)}_r${input.replicate}.txt`;
}

export const agenticRubricEvaluation: Stage = {
  name: "agentic_rubric_evaluation",
  shouldRun: (state, input) => !state.error && !!state.answer && agenticTraitsOf(input).length > 0,
  async run(state, input, ports) {
    const traits = agenticTraitsOf(input);
    const response = state.answer!.raw_llm_response;
    let warnings = state.warnings;
    const ws: WorkspacePort | null = ports.workspace ?? null;
    let traceFile: string | null = null;
    if (ws) warnings = await seedWorkspace(ws, input, ports, warnings);
    if (traits.some((t) => t.materialize_trace)) {
      if (!ws)
        warnings = warn(
          ports,
          warnings,
          "agentic_trace_inline",
          "materialize_trace: no workspace for this question; the trace is shown inline",
        );
      else {
        const path = traceFilePath(input);
        const w = await ws.write(path, response);
        if (w.ok) traceFile = path;
        else
          warnings = warn(
            ports,
            warnings,
            "agentic_trace_write_failed",
            `materialize_trace: could not write the trace (${w.error}); shown inline`,
          );
      }
    }
    const overrides = new Map<string, ModelPort | null>();
    for (const t of traits.filter((x) => x.model_override != null)) {
      const cfg = ModelConfig.safeParse(t.model_override);
      overrides.set(t.name, cfg.success && ports.judgeModels ? ports.judgeModels.model(cfg.data) : null);
      if (!cfg.success)
        warnings = warn(
          ports,
          warnings,
          "agentic_model_override",
          `agentic trait ${t.name}: model_override is not a valid model config; skipped`,
        );
      else if (!ports.judgeModels)
        warnings = warn(
          ports,
          warnings,
          "agentic_model_override",
          `agentic trait ${t.name}: no model ports for model_override here; skipped`,
        );
    }
    const resolveModel = (t: AgenticTrait): ModelPort | null => (overrides.has(t.name) ? overrides.get(t.name)! : ports.judge);
    try {
      const out = await evaluateAgenticTraits(traits, input.settings.agentic_rubric ?? { strategy: "individual" }, {
        question: input.question.question,
        response,
        workspace: ws,
        trace_file: traceFile,
        now: () => ports.clock.now(),
        resolveModel,
      });
      for (const w of out.warnings) warnings = warn(ports, warnings, "agentic_rubric", w);
      const patch: StagePatch = { agentic_rubric: out.artifact, warnings };
      // A transient failure behind a null score: the job is retried while it has deliveries left.
      if (out.transient && !state.transient_error) patch.transient_error = out.transient;
      if (out.usage) patch.usage = { ...state.usage, agentic_rubric_evaluation: out.usage };
      return patch;
    } finally {
      if (traceFile && ws && !traits.some((t) => t.persist_trace)) {
        const d = await ws.delete(traceFile);
        if (!d.ok) ports.log?.warn("agentic_trace_delete_failed", { error: d.error });
      }
    }
  },
};

/** The benchmark's files for this question, written into its workspace (idempotent: same content each job). */
export async function seedWorkspace(
  ws: WorkspacePort,
  input: PipelineInput,
  ports: PipelinePorts,
  warnings: string[] | undefined,
): Promise<string[] | undefined> {
  for (const [path, content] of Object.entries(input.question.workspace_files ?? {})) {
    const w = await ws.write(path, content);
    if (!w.ok) warnings = warn(ports, warnings, "agentic_workspace_seed_failed", `workspace file ${path} could not be written: ${w.error}`);
  }
  return warnings;
}
