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
export type { Usage } from '../core/usage.js';
import type { Usage } from '../core/usage.js';

export type StopReason = 'stop' | 'tool-use' | 'length' | 'content-filter';

/** A concrete model: who really answered (or failed) a call of a model made of several (failover). */
export interface ModelName {
  provider: 'openai' | 'anthropic';
  model: string;
}

export type ModelStreamEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; index: number; argumentsDelta: string }
  /**
   * A model of a failover chain failed with a retryable error and the same request goes to `next` now: every
   * delta since the call began belonged to the failed attempt and is void (a live draft starts over).
   */
  | { type: 'attempt-failed'; failed: ModelName; next: ModelName; error: unknown }
  /**
   * Always the last event: the complete assistant message as it goes into history. `answeredBy`: the concrete
   * model that wrote it, when it is not the model called (a failover chain says which of its models answered).
   */
  | { type: 'finish'; message: ChatMessage; stopReason: StopReason; usage: Usage; answeredBy?: ModelName };

export interface ModelResponse {
  message: ChatMessage;
  stopReason: StopReason;
  usage: Usage;
  /** The concrete model that answered, when it is not the model called (see the finish event). */
  answeredBy?: ModelName;
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
  /**
   * A model made of several (a failover chain): the same model with `wrap` around each concrete one, so that
   * a wrapper that depends on the model called (a budget reserving at its price) sits around every one of them.
   * Absent: the model is concrete, wrap it directly.
   */
  withEachModel?(wrap: (model: ChatModel) => ChatModel): ChatModel;
}

/** Applies `wrap` to every concrete model behind `model` (itself when it is concrete). */
export function wrapEachModel(model: ChatModel, wrap: (model: ChatModel) => ChatModel): ChatModel {
  return model.withEachModel ? model.withEachModel(wrap) : wrap(model);
}

/** The concrete model that answered: `answeredBy` of the finish event, else the model called. */
export function answererOf(model: ModelName, finish: { answeredBy?: ModelName | undefined }): ModelName {
  return finish.answeredBy ?? { provider: model.provider, model: model.model };
}

/** The output cap a request is sent with: its own `maxTokens` when smaller, else the model's cap. */
export function outputCapOf(maxOutputTokens: number, request: Pick<ChatRequest, 'maxTokens'>): number {
  return request.maxTokens === undefined ? maxOutputTokens : Math.min(request.maxTokens, maxOutputTokens);
}

export async function complete(model: ChatModel, request: ChatRequest): Promise<ModelResponse> {
  for await (const event of model.stream(request)) {
    if (event.type === 'finish') return { message: event.message, stopReason: event.stopReason, usage: event.usage, ...(event.answeredBy ? { answeredBy: event.answeredBy } : {}) };
  }
  throw new Error(`${model.provider} stream ended without a finish event`);
}
