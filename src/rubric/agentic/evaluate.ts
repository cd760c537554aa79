/**
 * Agentic trait evaluation: investigation (tool loop) then extraction, per trait ("individual")
 * or one investigation for all traits then extraction per trait ("shared").
 *
 * Returns per trait, as Karenina's evaluator: investigation failed → (null score, null trace);
 * extraction failed → (null score, the trace); both ok → (score, trace). The shared strategy
 * falls back to individual when the traits resolve to different models or when the shared
 * investigation fails. Nothing here throws for a model failure: it is a null score + a warning.
 *
 * `parallel` (agentic_rubric_parallel, bounded by async_max_workers as Karenina's parallel
 * invoker is): that many traits investigated (individual) or extracted (shared) at a time. Each
 * trait fills its own accumulator, merged in the traits' order, so scores, warnings and usage come
 * out the same whichever call finishes first. The workspace tools only read, so traits cannot
 * disturb each other.
 */
import { untrusted } from "../../lib/untrusted";
import { isRetryable, type LlmError, type ModelPort, type Usage } from "../../llm/port";
import { mapLimited } from "../../lib/map-limited";
import { addUsage } from "../../core-shared/usage";
import { runInvestigation } from "./agent";
import { extractScore } from "./extract";
import type { AgenticRubricArtifact, AgenticRubricSettings, AgenticScore, AgenticTrait, WorkspacePort } from "./types";

export interface AgenticContext {
  question: string;
  /** The answering trace (raw_llm_response). */
  response: string;
  workspace: WorkspacePort | null;
  /** Workspace path of the materialized trace, when the stage wrote one. */
  trace_file: string | null;
  now: () => number;
  /** The model a trait's agent runs on (model_override or the parsing model); null = no agent support. */
  resolveModel: (trait: AgenticTrait) => ModelPort | null;
}

export interface AgenticOutcome {
  artifact: AgenticRubricArtifact;
  strategy_used: "individual" | "shared";
  usage: Usage | undefined;
  warnings: string[];
  /** The first transient model failure behind a null score (a later delivery may succeed). */
  transient?: LlmError;
}

interface Acc {
  scores: Record<string, AgenticScore>;
  traces: Record<string, string | null>;
  usage: Usage | undefined;
  warnings: string[];
  transient?: LlmError;
}

const modeOf = (t: AgenticTrait) => t.context_mode ?? "trace_and_workspace";
const wantsTrace = (t: AgenticTrait) => modeOf(t) !== "workspace_only";
const wantsWorkspace = (t: AgenticTrait) => modeOf(t) !== "trace_only";

export async function evaluateAgenticTraits(
  traits: readonly AgenticTrait[],
  settings: AgenticRubricSettings,
  ctx: AgenticContext,
): Promise<AgenticOutcome> {
  const acc = newAcc();
  const parallel = Math.max(1, settings.parallel ?? 1);
  let used: "individual" | "shared" = "individual";
  if (settings.strategy === "shared" && traits.length > 0) used = (await tryShared(traits, ctx, acc, parallel)) ? "shared" : "individual";
  if (used === "individual") await eachTrait(traits, parallel, acc, (t, own) => individual(t, ctx, own));
  return {
    artifact: {
      agentic_rubric_evaluation_performed: true,
      agentic_trait_scores: acc.scores,
      agentic_trait_investigation_traces: acc.traces,
    },
    strategy_used: used,
    usage: acc.usage,
    warnings: acc.warnings,
    ...(acc.transient ? { transient: acc.transient } : {}),
  };
}

const newAcc = (): Acc => ({ scores: {}, traces: {}, usage: undefined, warnings: [] });

/** `fn` per trait, `parallel` at a time, each into its own accumulator; merged in trait order. */
async function eachTrait(
  traits: readonly AgenticTrait[],
  parallel: number,
  acc: Acc,
  fn: (t: AgenticTrait, own: Acc) => Promise<void>,
): Promise<void> {
  const parts = await mapLimited(traits, parallel, async (t) => {
    const own = newAcc();
    await fn(t, own);
    return own;
  });
  for (const part of parts) {
    Object.assign(acc.scores, part.scores);
    Object.assign(acc.traces, part.traces);
    if (part.usage) acc.usage = addUsage(acc.usage, part.usage);
    acc.warnings.push(...part.warnings);
    acc.transient ??= part.transient;
  }
}

function noteTransient(acc: Acc, error: LlmError | { kind: string; message: string }): void {
  if (!acc.transient && "kind" in error && isRetryable(error as LlmError)) acc.transient = error as LlmError;
}

async function individual(trait: AgenticTrait, ctx: AgenticContext, acc: Acc): Promise<void> {
  const model = ctx.resolveModel(trait);
  if (!model) return skip(acc, [trait], `agentic trait ${trait.name}: its model has no agent support; skipped`);
  const prompt = investigationPrompt([trait], ctx, {
    trace: wantsTrace(trait),
    workspace: wantsWorkspace(trait),
    materialized: trait.materialize_trace === true,
  });
  const inv = await runInvestigation(model, {
    ...prompt,
    max_turns: trait.max_turns ?? 15,
    timeout_ms: (trait.timeout_seconds ?? 120) * 1000,
    now: ctx.now,
    call_site: `agentic_rubric/${trait.name}`,
  });
  if (inv.usage) acc.usage = addUsage(acc.usage, inv.usage);
  if (!inv.ok) {
    noteTransient(acc, inv.error);
    return skip(acc, [trait], `agentic trait ${trait.name}: investigation failed: ${inv.error.message}`);
  }
  await extractInto(model, trait, inv.trace, acc, "agentic_rubric");
}

/** false = fall back to individual (different models, or the shared investigation failed). */
async function tryShared(traits: readonly AgenticTrait[], ctx: AgenticContext, acc: Acc, parallel: number): Promise<boolean> {
  const resolved = traits.map((t) => ({ t, model: ctx.resolveModel(t) }));
  const valid = resolved.filter((r): r is { t: AgenticTrait; model: ModelPort } => r.model !== null);
  const ids = new Set(valid.map((r) => `${r.model.identity.interface}:${r.model.identity.model_name}`));
  if (ids.size > 1) {
    acc.warnings.push("agentic_rubric_strategy shared: the traits resolve to different models; evaluated individually");
    return false;
  }
  if (valid.length === 0) {
    skip(acc, traits, "agentic traits: no model with agent support; skipped");
    return true;
  }
  const ts = valid.map((r) => r.t);
  const prompt = investigationPrompt(ts, ctx, {
    trace: ts.some(wantsTrace),
    workspace: ts.some(wantsWorkspace),
    materialized: ts.some((t) => t.materialize_trace === true),
  });
  const model = valid[0]!.model;
  const inv = await runInvestigation(model, {
    ...prompt,
    max_turns: Math.max(...ts.map((t) => t.max_turns ?? 15)),
    timeout_ms: Math.max(...ts.map((t) => t.timeout_seconds ?? 120)) * 1000,
    now: ctx.now,
    call_site: "agentic_rubric/shared",
  });
  if (inv.usage) acc.usage = addUsage(acc.usage, inv.usage);
  if (!inv.ok) {
    acc.warnings.push(`agentic_rubric_strategy shared: the shared investigation failed (${inv.error.message}); evaluated individually`);
    return false;
  }
  skip(
    acc,
    resolved.filter((r) => r.model === null).map((r) => r.t),
    "agentic trait: its model has no agent support; skipped",
  );
  await eachTrait(ts, parallel, acc, (t, own) => extractInto(model, t, inv.trace, own, "agentic_rubric/shared"));
  return true;
}

async function extractInto(model: ModelPort, trait: AgenticTrait, trace: string, acc: Acc, site: string): Promise<void> {
  acc.traces[trait.name] = trace;
  const ex = await extractScore(model, trait, trace, site);
  if (!ex.ok) {
    acc.scores[trait.name] = null;
    noteTransient(acc, ex.error);
    acc.warnings.push(`agentic trait ${trait.name}: score extraction failed: ${ex.error.message}`);
    return;
  }
  acc.usage = addUsage(acc.usage, ex.usage);
  Object.assign(acc.scores, ex.scores);
}

function skip(acc: Acc, traits: readonly AgenticTrait[], warning: string): void {
  if (traits.length === 0) return;
  for (const t of traits) {
    acc.scores[t.name] = null;
    acc.traces[t.name] = null;
  }
  acc.warnings.push(warning);
}

interface Include {
  trace: boolean;
  workspace: boolean;
  materialized: boolean;
}

/** System + user prompt; the workspace tools are offered only when the agent may use the workspace. */
export function investigationPrompt(
  traits: readonly AgenticTrait[],
  ctx: AgenticContext,
  inc: Include,
): { system: string; user: string; workspace: WorkspacePort | null } {
  const one = traits.length === 1 ? traits[0]! : null;
  const task = one
    ? `Your task: ${one.description}\nExpected output: ${typeof one.kind === "string" ? one.kind : "a JSON object matching the trait's schema"} — end with a clear verdict.`
    : `Your task: investigate every criterion below and report findings for each criterion clearly so scores can be extracted per trait.\n${traits.map((t) => `- ${t.name}: ${t.description}`).join("\n")}`;
  const system = `You are an evaluation agent investigating the quality of an LLM response. ${task}\nBe parsimonious: read only what you need, check file sizes before reading.`;
  const parts = [`Question: ${ctx.question}`];
  const useFile = inc.trace && inc.materialized && ctx.trace_file && ctx.workspace;
  if (useFile) parts.push(`The full agent trace is saved to: ${ctx.trace_file}\nUse file tools (grep, read_file) to examine it.`);
  else if (inc.trace && ctx.response) parts.push(`--- ANSWERING AGENT TRACE ---\n${untrusted(ctx.response)}\n--- END TRACE ---`);
  const ws = inc.workspace && ctx.workspace ? ctx.workspace : null;
  if (ws) parts.push(`Workspace directory: ${ws.label} (use list_files, read_file and grep)`);
  return { system, user: parts.join("\n\n"), workspace: ws ?? (useFile ? ctx.workspace : null) };
}
