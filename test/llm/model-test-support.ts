import type { LlmConfig } from '../../src/config/app-config.js';
import { BotError } from '../../src/core/errors.js';
import type { ModelStreamEvent } from '../../src/llm/chat-model.js';

export function testConfig(provider: LlmConfig['provider'], baseUrl: string, overrides: Partial<LlmConfig> = {}): LlmConfig {
  return {
    provider,
    model: provider === 'openai' ? 'gpt-4o-mini' : 'claude-sonnet-5-5',
    apiKey: 'test-key',
    baseUrl,
    stream: true,
    contextWindow: 128_000,
    maxOutputTokens: 4096,
    timeoutMs: 5_000,
    maxRetries: 2,
    ...overrides,
  };
}

export async function collect(events: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const collected: ModelStreamEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

/** The events seen before the stream failed, and the failure (a BotError, or the test fails). */
export async function collectUntilError(events: AsyncIterable<ModelStreamEvent>): Promise<{ events: ModelStreamEvent[]; error: BotError }> {
  const collected: ModelStreamEvent[] = [];
  try {
    for await (const event of events) collected.push(event);
  } catch (error) {
    if (error instanceof BotError) return { events: collected, error };
    throw error;
  }
  throw new Error(`expected the stream to fail; it ended with ${JSON.stringify(collected.at(-1))}`);
}

export function textOfEvents(events: ModelStreamEvent[]): string {
  return events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
}

export function finishOf(events: ModelStreamEvent[]): Extract<ModelStreamEvent, { type: 'finish' }> {
  const last = events.at(-1);
  if (last?.type !== 'finish') throw new Error(`the last event is ${last?.type}, not finish`);
  return last;
}
