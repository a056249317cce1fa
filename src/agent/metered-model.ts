import { errorMessage, isAbortError } from '../core/errors.js';
import type { ChatModel, ChatRequest, ModelStreamEvent, Usage } from '../llm/chat-model.js';
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
  const startedAt = options.clock();
  let usage: Usage | undefined;
  let error: string | undefined;
  try {
    for await (const event of model.stream(request)) {
      if (event.type === 'finish') usage = event.usage;
      yield event;
    }
  } catch (caught) {
    error = request.signal?.aborted || isAbortError(caught) ? 'cancelled' : errorMessage(caught);
    throw caught;
  } finally {
    options.onSpan({
      kind: 'llm',
      name: `${model.provider}:${model.model}`,
      provider: model.provider,
      model: model.model,
      iteration: 0,
      purpose: options.purpose,
      startedAt,
      durationMs: options.clock() - startedAt,
      usage,
      costUsd: usage ? options.prices?.(model.model, usage) : undefined,
      error: usage || error ? error : 'cancelled',
      input: undefined,
    });
  }
}
