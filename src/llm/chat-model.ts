import type { ChatMessage } from '../core/chat-message.js';

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments (a TypeBox schema is one). */
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  system: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** `none` keeps tool definitions out of the request (max-iterations summary, summarization). */
  toolChoice?: 'auto' | 'none';
  /** Asks for a smaller output cap than the model's `maxOutputTokens` (summaries); never a larger one. */
  maxTokens?: number;
  /** Ignored by Anthropic: its API version in this SDK has no sampling parameters. */
  temperature?: number;
  /** Requests that share a prompt prefix (one session) carry the same key: OpenAI routes them to a warm cache. */
  cacheKey?: string;
  signal?: AbortSignal;
}

/** Token counts of one call. The three input counts are disjoint: their sum is the whole prompt. */
export interface Usage {
  /** Input tokens neither read from nor written to the prompt cache. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

export type StopReason = 'stop' | 'tool-use' | 'length' | 'content-filter';

export type ModelStreamEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; index: number; argumentsDelta: string }
  /** Always the last event: the complete assistant message as it goes into history. */
  | { type: 'finish'; message: ChatMessage; stopReason: StopReason; usage: Usage };

export interface ModelResponse {
  message: ChatMessage;
  stopReason: StopReason;
  usage: Usage;
}

/**
 * One model behind one wire API. Failures are thrown as `BotError` with a code
 * (`rate-limit`, `overloaded`, `context-length`, `auth`, `bad-request`, `network`, `timeout`, `server`, `aborted`).
 */
export interface ChatModel {
  readonly provider: 'openai' | 'anthropic';
  readonly model: string;
  readonly contextWindow: number;
  /** The output cap every request carries (LLM_MAX_OUTPUT_TOKENS): OpenAI `max_completion_tokens`, Anthropic `max_tokens`. */
  readonly maxOutputTokens: number;
  /** Streams deltas and ends with `finish`; with streaming off it yields only `finish`. */
  stream(request: ChatRequest): AsyncIterable<ModelStreamEvent>;
}

/** The output cap a request is sent with: its own `maxTokens` when smaller, else the model's cap. */
export function outputCapOf(maxOutputTokens: number, request: Pick<ChatRequest, 'maxTokens'>): number {
  return request.maxTokens === undefined ? maxOutputTokens : Math.min(request.maxTokens, maxOutputTokens);
}

export async function complete(model: ChatModel, request: ChatRequest): Promise<ModelResponse> {
  for await (const event of model.stream(request)) {
    if (event.type === 'finish') return { message: event.message, stopReason: event.stopReason, usage: event.usage };
  }
  throw new Error(`${model.provider} stream ended without a finish event`);
}
