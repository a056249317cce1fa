import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userText } from '../../src/core/chat-message.js';
import { BotError } from '../../src/core/errors.js';
import { complete, wrapEachModel, type ChatModel, type ChatRequest, type ModelStreamEvent } from '../../src/llm/chat-model.js';
import { FailoverChatModel, isFailoverError, type Failover, type FailoverCooldowns } from '../../src/llm/index.js';
import { KeySpace, RedisFailoverCooldowns } from '../../src/redis/index.js';
import { TEST_REDIS_URL, uniqueName } from '../support/services.js';

let redis: Redis;
let prefix: string;

beforeAll(() => {
  redis = new Redis(TEST_REDIS_URL);
  prefix = uniqueName('failover');
});

afterAll(async () => {
  const keys = await redis.keys(`{${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

type Behaviour = { text: string } | { error: BotError } | { partial: string; error: BotError };

/** A concrete model that answers or fails as told, call by call, and counts its calls. */
class FakeModel implements ChatModel {
  readonly contextWindow: number;
  readonly maxOutputTokens = 1000;
  calls = 0;
  constructor(
    readonly provider: 'openai' | 'anthropic',
    readonly model: string,
    private readonly behaviour: () => Behaviour,
    contextWindow = 100_000,
  ) {
    this.contextWindow = contextWindow;
  }
  async *stream(_request: ChatRequest): AsyncIterable<ModelStreamEvent> {
    this.calls++;
    const behaviour = this.behaviour();
    if ('partial' in behaviour) {
      yield { type: 'text-delta', text: behaviour.partial };
      throw behaviour.error;
    }
    if ('error' in behaviour) throw behaviour.error;
    yield { type: 'text-delta', text: behaviour.text };
    yield { type: 'finish', message: { role: 'assistant', parts: [{ type: 'text', text: behaviour.text }] }, stopReason: 'stop', usage: { inputTokens: 10, outputTokens: 2 } };
  }
}

const overloaded = () => new BotError('overloaded', 'openai 503 overloaded', { isRetryable: true });
const request: ChatRequest = { system: 'test', messages: [userText('hi')] };

async function events(model: ChatModel, signal?: AbortSignal): Promise<ModelStreamEvent[]> {
  const seen: ModelStreamEvent[] = [];
  for await (const event of model.stream({ ...request, ...(signal ? { signal } : {}) })) seen.push(event);
  return seen;
}

function chain(models: ChatModel[], cooldownMs = 60_000, cooldowns: FailoverCooldowns = new RedisFailoverCooldowns(redis, new KeySpace(prefix, 1, false))) {
  const failovers: Failover[] = [];
  const model = new FailoverChatModel(models, { cooldowns, cooldownMs, onFailover: (failover) => failovers.push(failover) });
  return { model, failovers, cooldowns };
}

describe('a failover chain (CONTRACT §17)', () => {
  it('hands a retryable failure to the next model, voids the failed attempt, names the answering model and cools the failed one down in Redis', async () => {
    const primary = new FakeModel('openai', 'always-overloaded-1', () => ({ partial: 'Half an ans', error: overloaded() }));
    const fallback = new FakeModel('anthropic', 'claude-haiku-4-5', () => ({ text: 'Whole answer.' }));
    const { model, failovers } = chain([primary, fallback]);
    const seen = await events(model);
    expect(seen.map((event) => event.type)).toEqual(['text-delta', 'attempt-failed', 'text-delta', 'finish']);
    expect(seen[1]).toMatchObject({ type: 'attempt-failed', failed: { provider: 'openai', model: 'always-overloaded-1' }, next: { provider: 'anthropic', model: 'claude-haiku-4-5' } });
    expect(seen.at(-1)).toMatchObject({ type: 'finish', answeredBy: { provider: 'anthropic', model: 'claude-haiku-4-5' } });
    expect(failovers).toEqual([expect.objectContaining({ from: { provider: 'openai', model: 'always-overloaded-1' }, reason: 'overloaded' })]);
    const key = `{${prefix}:llm}:cooldown:openai:always-overloaded-1`;
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);

    // the next call skips the cooling primary: it is not asked at all
    const answer = await complete(model, request);
    expect(answer.answeredBy).toEqual({ provider: 'anthropic', model: 'claude-haiku-4-5' });
    expect(primary.calls).toBe(1);
    expect(fallback.calls).toBe(2);
    expect(failovers.at(-1)).toMatchObject({ reason: 'cooldown', to: { model: 'claude-haiku-4-5' } });
  });

  it('after the cool-down the primary is tried again', async () => {
    let failing = true;
    const primary = new FakeModel('openai', 'flaky-primary', () => (failing ? { error: overloaded() } : { text: 'primary again' }));
    const fallback = new FakeModel('openai', 'steady-fallback', () => ({ text: 'fallback' }));
    const { model } = chain([primary, fallback], 300);
    expect((await complete(model, request)).answeredBy?.model).toBe('steady-fallback');
    failing = false;
    expect((await complete(model, request)).answeredBy?.model).toBe('steady-fallback');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await complete(model, request)).answeredBy?.model).toBe('flaky-primary');
    expect(primary.calls).toBe(2);
  });

  it.each([
    ['400 invalid request', new BotError('bad-request', 'openai 400: bad')],
    ['401', new BotError('auth', 'openai 401: invalid api key')],
    ['context length', new BotError('context-length', 'openai 400: maximum context length')],
    ['a budget refusal', new BotError('budget-exceeded', 'the chat daily budget is used up')],
  ])('never fails over on %s: the error is the call\u2019s and nothing cools down', async (_name, error) => {
    const primary = new FakeModel('openai', `refused-${error.code}`, () => ({ error }));
    const fallback = new FakeModel('anthropic', 'never-asked', () => ({ text: 'no' }));
    const { model, failovers } = chain([primary, fallback]);
    await expect(complete(model, request)).rejects.toBe(error);
    expect(fallback.calls).toBe(0);
    expect(failovers).toEqual([]);
    expect(await redis.exists(`{${prefix}:llm}:cooldown:openai:refused-${error.code}`)).toBe(0);
    expect(isFailoverError(error)).toBe(false);
  });

  it('fails over on 429, timeouts, broken connections and 5xx; the last model failing ends the call with its error', async () => {
    const errors = [
      new BotError('rate-limit', '429', { isRetryable: true }),
      new BotError('timeout', 'timed out', { isRetryable: true }),
      new BotError('network', 'stream ended before the model finished', { isRetryable: true }),
    ];
    const models = errors.map((error, index) => new FakeModel('openai', `failing-${index}`, () => ({ error })));
    const last = new BotError('server', 'anthropic 500', { isRetryable: true });
    const { model, failovers } = chain([...models, new FakeModel('anthropic', 'failing-last', () => ({ error: last }))]);
    await expect(complete(model, request)).rejects.toBe(last);
    expect(failovers.map((failover) => failover.reason)).toEqual(['rate-limit', 'timeout', 'network']);
    // every model that failed cools down, the last one too
    const cooling = await new RedisFailoverCooldowns(redis, new KeySpace(prefix, 1, false)).coolingOf(['openai:failing-0', 'openai:failing-1', 'openai:failing-2', 'anthropic:failing-last']);
    expect(cooling.size).toBe(4);
    // all cooling: the chain is tried in order anyway rather than refusing the call
    await expect(complete(model, request)).rejects.toBe(last);
    expect(models.map((fake) => fake.calls)).toEqual([2, 2, 2]);
  });

  it('an aborted call is not handed on', async () => {
    const controller = new AbortController();
    const primary = new FakeModel('openai', 'aborted-primary', () => {
      controller.abort();
      return { error: new BotError('network', 'cut', { isRetryable: true }) };
    });
    const fallback = new FakeModel('anthropic', 'after-abort', () => ({ text: 'no' }));
    const { model } = chain([primary, fallback]);
    await expect(events(model, controller.signal)).rejects.toThrow('cut');
    expect(fallback.calls).toBe(0);
  });

  it('reads the cool-downs once per call (one MGET of the chain), and not at all for a single model or with cool-downs off', async () => {
    const reads: string[][] = [];
    const counting: FailoverCooldowns = {
      coolingOf: async (models) => {
        reads.push([...models]);
        return new Set();
      },
      coolDown: async () => undefined,
    };
    const primary = new FakeModel('openai', 'fine', () => ({ text: 'ok' }));
    await complete(chain([primary, new FakeModel('anthropic', 'spare', () => ({ text: 'x' }))], 60_000, counting).model, request);
    expect(reads).toEqual([['openai:fine', 'anthropic:spare']]);
    await complete(chain([primary], 60_000, counting).model, request);
    await complete(chain([primary, new FakeModel('anthropic', 'spare', () => ({ text: 'x' }))], 0, counting).model, request);
    expect(reads).toHaveLength(1);
  });

  it('a Redis that cannot be read does not stop the call: the chain is tried in order', async () => {
    const broken: FailoverCooldowns = {
      coolingOf: async () => {
        throw new Error('redis down');
      },
      coolDown: async () => {
        throw new Error('redis down');
      },
    };
    const primary = new FakeModel('openai', 'down-primary', () => ({ error: overloaded() }));
    const { model } = chain([primary, new FakeModel('anthropic', 'up-fallback', () => ({ text: 'answered' }))], 60_000, broken);
    expect((await complete(model, request)).answeredBy?.model).toBe('up-fallback');
  });

  it('wraps each concrete model (budgets reserve at the price of the model called) and takes the smallest context window', () => {
    const primary = new FakeModel('openai', 'big', () => ({ text: 'x' }), 200_000);
    const fallback = new FakeModel('anthropic', 'small', () => ({ text: 'x' }), 32_000);
    const { model } = chain([primary, fallback]);
    expect(model.contextWindow).toBe(32_000);
    const wrapped: string[] = [];
    const result = wrapEachModel(model, (concrete) => {
      wrapped.push(concrete.model);
      return concrete;
    });
    expect(wrapped).toEqual(['big', 'small']);
    expect(result).toBeInstanceOf(FailoverChatModel);
    expect((result as FailoverChatModel).models.map((member) => member.model)).toEqual(['big', 'small']);
  });
});
