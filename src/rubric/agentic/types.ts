/**
 * Agentic rubric traits (stage 11b): the settings, what the stage records, and the workspace
 * port. The workspace is a per-question file area (an R2 prefix at the edge, src/adapters/workspace.ts);
 * the core sees only this interface, with outputs bounded by the implementation.
 */

export type ContextMode = "workspace_only" | "trace_and_workspace" | "trace_only";

/** What the evaluator reads of an AgenticRubricTrait (the loose benchmark object). */
export interface AgenticTrait {
  name: string;
  description: string;
  kind: "boolean" | "score" | "literal" | { type: "template"; schema: Record<string, unknown> };
  min_score?: number | null;
  max_score?: number | null;
  classes?: Record<string, string> | null;
  context_mode?: ContextMode;
  max_turns?: number;
  timeout_seconds?: number;
  materialize_trace?: boolean;
  persist_trace?: boolean;
  model_override?: unknown;
}

export interface AgenticRubricSettings {
  strategy: "individual" | "shared";
  /** Traits at a time (agentic_rubric_parallel → async_max_workers); 1 or absent: one after another. */
  parallel?: number;
}

export type AgenticScore = number | boolean | null;

/** Karenina's AGENTIC_* result fields; template-kind traits are exploded as `trait.field`. */
export interface AgenticRubricArtifact {
  agentic_rubric_evaluation_performed: boolean;
  agentic_trait_scores: Record<string, AgenticScore>;
  agentic_trait_investigation_traces: Record<string, string | null>;
}

export interface WorkspaceEntry {
  path: string;
  size: number;
}

export interface GrepHit {
  path: string;
  line: number;
  text: string;
}

export type WsResult<T> = { ok: true; value: T } | { ok: false; error: string };

export interface WorkspacePort {
  /** A name for prompts ("workspace directory"); never a secret or a bucket URL. */
  readonly label: string;
  list(prefix?: string): Promise<WsResult<WorkspaceEntry[]>>;
  /** At most `length` characters from `offset` (the implementation caps both). */
  read(path: string, offset?: number, length?: number): Promise<WsResult<string>>;
  grep(pattern: string, prefix?: string): Promise<WsResult<GrepHit[]>>;
  write(path: string, content: string): Promise<WsResult<void>>;
  delete(path: string): Promise<WsResult<void>>;
}
