import { BotError, errorMessage, isAbortError } from '../core/errors.js';
import type { ChatModel, ChatRequest, ModelName, ModelResponse, ModelStreamEvent } from '../llm/chat-model.js';
import { raceAbort } from './abortable.js';
import type { AgentEvent } from './agent-events.js';
import type { RunAccounting } from './run-accounting.js';
import type { LlmSpan } from './turn-steps.js';
import type { PromptSplit } from '../core/trace-span.js';

type AttemptFailed = Extract<ModelStreamEvent, { type: 'attempt-failed' }>;

const nameOf = (model: ModelName): string => `${model.provider}:${model.model}`;

/**
 * Streams one model call, forwarding text and reasoning deltas; returns the finished response. A failover inside
 * the call (a fallback model takes over) is reported to `onAttemptFailed` and as a `model-failover` event.
 */
async function* streamModel(
  model: ChatModel,
  request: ChatRequest,
  signal: AbortSignal,
  onAttemptFailed: (event: AttemptFailed) => Promise<void>,
): AsyncGenerator<AgentEvent, ModelResponse> {
  const iterator = model.stream({ ...request, signal })[Symbol.asyncIterator]();
  try {
    for (;;) {
      const step = await raceAbort(iterator.next(), signal);
      if (step.done) throw new BotError('internal', `${model.provider} stream ended without a finish event`);
      const event = step.value;
      switch (event.type) {
        case 'text-delta':
          yield { type: 'text-delta', text: event.text };
          break;
        case 'reasoning-delta':
          yield { type: 'reasoning-delta', text: event.text };
          break;
        case 'tool-call-start':
        case 'tool-call-delta':
          break;
        case 'attempt-failed': {
          await onAttemptFailed(event);
          const reason = event.error instanceof BotError ? event.error.code : 'error';
          yield { type: 'model-failover', from: nameOf(event.failed), to: nameOf(event.next), reason };
          break;
        }
        case 'finish':
          return { message: event.message, stopReason: event.stopReason, usage: event.usage, ...(event.answeredBy ? { answeredBy: event.answeredBy } : {}) };
      }
    }
  } finally {
    // Not awaited: a stream stuck in a pending read must not keep a cancelled run alive.
    Promise.resolve(iterator.return?.()).catch(() => {});
  }
}

/**
 * One LLM call with its span recorded, whether it succeeds or throws; each attempt of a failover chain that failed
 * before another model answered gets its own failed span, named after that model (`onFailedSpan` makes it durable).
 */
export async function* callModel(
  model: ChatModel,
  request: Omit<ChatRequest, 'signal'>,
  signal: AbortSignal,
  run: RunAccounting,
  iteration: number,
  clock: () => number,
  onFailedSpan?: (span: LlmSpan) => Promise<void>,
  promptSplit?: PromptSplit,
): AsyncGenerator<AgentEvent, ModelResponse & { span: LlmSpan }> {
  let startedAt = clock();
  let attempt: ModelName = { provider: model.provider, model: model.model };
  const traced = { system: request.system, messages: request.messages };
  const onAttemptFailed = async (event: AttemptFailed): Promise<void> => {
    const span = run.recordLlmCall({ iteration, startedAt, usage: undefined, error: errorMessage(event.error), request: traced, answeredBy: event.failed });
    await onFailedSpan?.(span);
    startedAt = clock();
    attempt = event.next;
  };
  try {
    const response = yield* streamModel(model, request, signal, onAttemptFailed);
    const span = run.recordLlmCall({ iteration, startedAt, usage: response.usage, error: undefined, request: traced, answeredBy: response.answeredBy ?? attempt, finishReason: response.stopReason, promptSplit });
    return { ...response, span };
  } catch (error) {
    const cancelled = signal.aborted || isAbortError(error);
    run.recordLlmCall({ iteration, startedAt, usage: undefined, error: cancelled ? 'cancelled' : errorMessage(error), request: traced, answeredBy: attempt });
    throw error;
  }
}
