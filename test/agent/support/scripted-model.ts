import type { ChatMessage, MessagePart } from '../../../src/core/chat-message.js';
import { BotError } from '../../../src/core/errors.js';
import type { ChatModel, ChatRequest, ModelStreamEvent, StopReason, Usage } from '../../../src/llm/chat-model.js';

export interface ScriptedToolCall {
  id?: string;
  name: string;
  /** Serialized with JSON.stringify unless `rawArguments` is given. */
  args?: unknown;
  rawArguments?: string;
}

export type ScriptedReply =
  | { text?: string; reasoning?: string; toolCalls?: ScriptedToolCall[]; usage?: Usage; stopReason?: StopReason }
  | { error: unknown }
  /** Streams `text` (if any), then waits until the request's signal aborts and throws an abort error. */
  | { hangUntilAborted: true; text?: string }
  /** Streams `text` (if any), then never settles, ignoring the signal. */
  | { hangForever: true; text?: string };

export type ScriptStep = ScriptedReply | ((request: ChatRequest) => ScriptedReply);

export const DEFAULT_USAGE: Usage = { inputTokens: 100, outputTokens: 10 };

let generatedIds = 0;

function assistantMessage(reply: { text?: string; reasoning?: string; toolCalls?: ScriptedToolCall[] }): ChatMessage {
  const parts: MessagePart[] = [];
  if (reply.reasoning) parts.push({ type: 'reasoning', text: reply.reasoning });
  if (reply.text) parts.push({ type: 'text', text: reply.text });
  for (const call of reply.toolCalls ?? []) {
    parts.push({
      type: 'tool-call',
      id: call.id ?? `call_${++generatedIds}`,
      name: call.name,
      arguments: call.rawArguments ?? JSON.stringify(call.args ?? {}),
    });
  }
  return { role: 'assistant', parts };
}

function* textDeltas(text: string | undefined): Generator<ModelStreamEvent> {
  if (!text) return;
  for (let index = 0; index < text.length; index += 5) yield { type: 'text-delta', text: text.slice(index, index + 5) };
}

/** A ChatModel double that plays a script, one step per call, and records every request. */
export class ScriptedModel implements ChatModel {
  readonly provider: 'openai' | 'anthropic';
  readonly model: string;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  readonly requests: ChatRequest[] = [];
  readonly #steps: ScriptStep[];

  constructor(steps: ScriptStep[], options: { contextWindow?: number; maxOutputTokens?: number; provider?: 'openai' | 'anthropic'; model?: string } = {}) {
    this.#steps = [...steps];
    this.provider = options.provider ?? 'openai';
    this.model = options.model ?? 'scripted-model';
    this.contextWindow = options.contextWindow ?? 100_000;
    this.maxOutputTokens = options.maxOutputTokens ?? 4096;
  }

  async *stream(request: ChatRequest): AsyncIterable<ModelStreamEvent> {
    this.requests.push(request);
    const step = this.#steps.shift();
    if (!step) throw new Error('the script has no more steps');
    const reply = typeof step === 'function' ? step(request) : step;
    if ('error' in reply) throw reply.error;
    if ('hangUntilAborted' in reply) {
      yield* textDeltas(reply.text);
      await new Promise<never>((_resolve, reject) => {
        const abort = (): void => reject(new BotError('aborted', 'request aborted'));
        if (request.signal?.aborted) abort();
        request.signal?.addEventListener('abort', abort, { once: true });
      });
      return;
    }
    if ('hangForever' in reply) {
      yield* textDeltas(reply.text);
      await new Promise<never>(() => {});
      return;
    }
    if (reply.reasoning) yield { type: 'reasoning-delta', text: reply.reasoning };
    yield* textDeltas(reply.text);
    const message = assistantMessage(reply);
    const stopReason = reply.stopReason ?? (reply.toolCalls?.length ? 'tool-use' : 'stop');
    yield { type: 'finish', message, stopReason, usage: reply.usage ?? DEFAULT_USAGE };
  }
}
