/**
 * One message of a conversation with a model: what the model port (src/llm/port.ts) sends and gets,
 * and what a recorded trace holds (trace-message.ts is its wire form). Defined here, below both, so
 * the schemas need not import the LLM layer.
 */
export type Role = "system" | "user" | "assistant" | "tool";

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed JSON arguments. */
  arguments: unknown;
}

export interface Message {
  role: Role;
  content: string;
  /** assistant turns that asked for tools */
  tool_calls?: ToolCall[];
  /** tool turns: the call this message answers */
  tool_call_id?: string;
}
