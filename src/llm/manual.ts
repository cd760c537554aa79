/**
 * The port of a `manual` model. Its answers are traces supplied in the run config and read by the
 * pipeline from there (Karenina's manual interface); a manual model cannot be called, so it cannot
 * judge: every operation answers `unsupported`.
 */
import {
  unsupported,
  type ChatResponse,
  type EmbedResponse,
  type LlmResult,
  type LogprobsResponse,
  type ModelIdentityLike,
  type ModelPort,
  type StructuredResponse,
  type ToolTurnResponse,
} from "./port";

export class ManualPort implements ModelPort {
  readonly identity: ModelIdentityLike & { id?: string };

  constructor(identity: { id?: string; model_name: string }) {
    this.identity = { id: identity.id, interface: "manual", model_name: identity.model_name };
  }

  async chat(): Promise<LlmResult<ChatResponse>> {
    return unsupported("chat on a manual model (its answers come from the config)");
  }
  async structured<T>(): Promise<LlmResult<StructuredResponse<T>>> {
    return unsupported("structured output on a manual model (a manual model cannot judge)");
  }
  async embed(): Promise<LlmResult<EmbedResponse>> {
    return unsupported("embeddings on a manual model");
  }
  async toolTurn(): Promise<LlmResult<ToolTurnResponse>> {
    return unsupported("tool turns on a manual model");
  }
  async logprobs(): Promise<LlmResult<LogprobsResponse>> {
    return unsupported("logprobs on a manual model");
  }
}
