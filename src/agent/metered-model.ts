import { errorMessage, isAbortError } from '../core/errors.js';
import { answererOf, type ChatModel, type ChatRequest, type ModelName, type ModelStreamEvent, type Usage } from '../llm/chat-model.js';
import type { LlmCallPurpose } from './agent-events.js';
import type { PriceTable } from './pricing.js';
import type { LlmSpan } from './turn-steps.js';

export interface MeterOptions {
  purpose: LlmCallPurpose;
  prices: PriceTable | undefined;
  clock: () => number;
  /** Every call made through the model, as an LLM span of the turn it is made for (whether it answered or failed). */
  onSpan: (span: LlmSpan) => void;
}

/**
 * The same model, recording each call as a span with its tokens and cost: for the calls a turn needs outside the
 * agent loop (compaction's summary and memory flush), which the loop's own accounting does not see. The model it
 * wraps is the turn's, so the calls are charged to the same budgets.
 */
export function meteredModel(model: ChatModel, options: MeterOptions): ChatModel {
  return {
    provider: model.provider,
    model: model.model,
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens,
    stream: (request) => meteredStream(model, request, options),
  };
}

async function* meteredStream(model: ChatModel, request: ChatRequest, options: MeterOptions): AsyncGenerator<ModelStreamEvent> {
  let startedAt = options.clock();
  // the model being tried: a failover chain's member that failed gets its own span, then the next one is tried
  let attempt: ModelName = { provider: model.provider, model: model.model };
  let usage: Usage | undefined;
  let error: string | undefined;
  const span = (name: ModelName, spanUsage: Usage | undefined, spanError: string | undefined): LlmSpan => ({
    kind: 'llm',
    name: `${name.provider}:${name.model}`,
    provider: name.provider,
    model: name.model,
    iteration: 0,
    purpose: options.purpose,
    startedAt,
    durationMs: options.clock() - startedAt,
    usage: spanUsage,
    costUsd: spanUsage ? options.prices?.(name.model, spanUsage) : undefined,
    error: spanError,
    input: undefined,
  });
  try {
    for await (const event of model.stream(request)) {
      if (event.type === 'attempt-failed') {
        options.onSpan(span(event.failed, undefined, errorMessage(event.error)));
        startedAt = options.clock();
        attempt = event.next;
      }
      if (event.type === 'finish') {
        usage = event.usage;
        attempt = answererOf(attempt, event);
      }
      yield event;
    }
  } catch (caught) {
    error = request.signal?.aborted || isAbortError(caught) ? 'cancelled' : errorMessage(caught);
    throw caught;
  } finally {
    options.onSpan(span(attempt, usage, usage || error ? error : 'cancelled'));
  }
}
