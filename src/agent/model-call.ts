import { BotError, errorMessage, isAbortError } from '../core/errors.js';
import type { ChatModel, ChatRequest, ModelResponse } from '../llm/chat-model.js';
import { raceAbort } from './abortable.js';
import type { AgentEvent } from './agent-events.js';
import type { RunAccounting } from './run-accounting.js';
import type { LlmSpan } from './turn-steps.js';

/** Streams one model call, forwarding text and reasoning deltas; returns the finished response. */
async function* streamModel(model: ChatModel, request: ChatRequest, signal: AbortSignal): AsyncGenerator<AgentEvent, ModelResponse> {
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
        case 'finish':
          return { message: event.message, stopReason: event.stopReason, usage: event.usage };
      }
    }
  } finally {
    // Not awaited: a stream stuck in a pending read must not keep a cancelled run alive.
    Promise.resolve(iterator.return?.()).catch(() => {});
  }
}

/** One LLM call with its span recorded, whether it succeeds or throws. */
export async function* callModel(
  model: ChatModel,
  request: Omit<ChatRequest, 'signal'>,
  signal: AbortSignal,
  run: RunAccounting,
  iteration: number,
  clock: () => number,
): AsyncGenerator<AgentEvent, ModelResponse & { span: LlmSpan }> {
  const startedAt = clock();
  const traced = { system: request.system, messages: request.messages };
  try {
    const response = yield* streamModel(model, request, signal);
    const span = run.recordLlmCall({ iteration, startedAt, usage: response.usage, error: undefined, request: traced });
    return { ...response, span };
  } catch (error) {
    const cancelled = signal.aborted || isAbortError(error);
    run.recordLlmCall({ iteration, startedAt, usage: undefined, error: cancelled ? 'cancelled' : errorMessage(error), request: traced });
    throw error;
  }
}
