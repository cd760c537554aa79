/** The judge step of a job: one parsing model's pipeline over the job's answer, with the job's ports. */
import { createCallableTraitRunner } from "../adapters/rubric-callable";
import type { ModelPort } from "../llm/port";
import { runPipeline } from "../pipeline/orchestrator";
import type { AnswerOutcome } from "../pipeline/types";
import type { ModelConfig } from "../schemas/model-config";
import type { RunSpec } from "../storage/run-spec";
import { r2Workspace, workspacePrefix } from "../adapters/workspace";
import { embeddingModel, type EmbeddingPlace } from "../llm/embedding-model";
import { modelRetryPolicy } from "../adapters/edge-models";
import type { JobContext, JobModels } from "./job-runner";

const defaultCallableRunner = createCallableTraitRunner();

/** One parsing model's pipeline over the job's answer. */
export function judge(ctx: JobContext, models: JobModels, answer: AnswerOutcome, parsing: ModelConfig) {
  const { spec, job, deps } = ctx;
  return runPipeline(
    {
      run_id: spec.run_id,
      run_name: spec.run_name,
      question: job.question,
      answering: job.answering,
      parsing,
      replicate: job.replicate,
      settings: spec.settings,
      answer,
      // The ledger the ports count into, in place or across deliveries: finalizeResult reads it for
      // retry_counts and the retries_used caveat, this pipeline's own retries included.
      retries: { used: models.ledger, budgets: modelRetryPolicy(deps.retryPolicy, parsing).budgets },
      ...(job.scenario ? { scenario: job.scenario } : {}),
    },
    {
      answerer: models.portFor(job.answering),
      judge: models.portFor(parsing),
      ...embedderFor(spec, parsing, models.portFor, deps.embeddingPlace),
      clock: deps.clock,
      log: deps.log,
      codeVerifier: deps.codeVerifier,
      search: deps.searchFor?.(spec.tenant_id),
      // Callable rubric traits run in the QuickJS sandbox; compound traits' units get their own ports.
      callableTraits: deps.callableTraits ?? defaultCallableRunner,
      judgeModels: { model: models.portFor },
      // Agentic rubric traits investigate the question's workspace (an R2 prefix per question of the run).
      workspace: r2Workspace(deps.blobs, workspacePrefix(spec, job.question.id)),
    },
  );
}

/** The embedding check's port and model for this judge (src/llm/embedding-model.ts); plan.ts refused the unresolvable. */
function embedderFor(spec: RunSpec, judge: ModelConfig, portFor: (m: ModelConfig) => ModelPort, place: EmbeddingPlace = { local: false }) {
  const e = spec.settings.embedding_check;
  if (!e?.enabled) return {};
  const r = embeddingModel({ model: e.model, provider: e.provider ?? null }, judge, place);
  return "error" in r ? {} : { embedder: portFor(r.config), embedderModel: r.model };
}
