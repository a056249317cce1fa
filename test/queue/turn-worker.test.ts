import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionKeyOf } from '../../src/core/session-key.js';
import { createLogger } from '../../src/observability/logger.js';
import { AbortBus } from '../../src/queue/abort-bus.js';
import { InboundQueue } from '../../src/queue/inbound-queue.js';
import { SessionScheduler } from '../../src/queue/session-scheduler.js';
import type { TurnRequest } from '../../src/core/turn-contract.js';
import { TURN_RETRY, TurnWorker, type TurnAbandoner } from '../../src/queue/turn-worker.js';
import { waitFor } from '../support/service-process.js';
import { inboundMessage } from '../support/messages.js';
import { TEST_REDIS_URL, uniqueName } from '../support/services.js';

const logger = createLogger({ level: 'silent' });
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function harness(
  runTurn: (request: TurnRequest) => Promise<{ kind: 'retry'; error: unknown } | { kind: 'completed' }>,
  attempts: number,
  rounds: { lateRounds?: number; lateRoundDelayMs?: number; abandonTurn?: TurnAbandoner } = {},
) {
  const prefix = uniqueName('worker');
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  const scheduler = new SessionScheduler(redis, { prefix, groupMaxConcurrent: 3, mode: 'collect', leaseMs: 5_000, debounceMs: 0 });
  const abortBus = new AbortBus(`${prefix}:abort`, redis, undefined, logger);
  const inbound = new InboundQueue(redis, prefix, scheduler, abortBus, logger, attempts);
  const worker = new TurnWorker({ connection: redis, prefix, concurrency: 4, leaseMs: 5_000, scheduler, inbound, abortBus, runTurn, logger, ...rounds });
  worker.start();
  cleanups.push(async () => {
    await worker.close(1_000);
    await inbound.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });
  return { scheduler, inbound };
}

describe('TurnWorker', () => {
  it('does not leave a turn without a job: after the last attempt of a round fails it is woken again later', async () => {
    const attempts: number[] = [];
    const { scheduler, inbound } = harness(async (request) => {
      attempts.push(request.attempt);
      return { kind: 'retry', error: new Error('database unreachable') };
    }, 2);
    const message = inboundMessage();
    await inbound.submit(message);
    const key = sessionKeyOf(message);
    const [finished] = await waitFor(async () => {
      const completed = await inbound.queue.getCompleted();
      return completed.length === 1 ? completed : undefined;
    }, { timeoutMs: 10_000, what: 'the job to use its attempts' });
    expect(finished!.returnvalue).toBe('retry-later');
    expect(attempts).toEqual([1, 2]);
    expect(await scheduler.depth(key)).toEqual({ pending: 1, active: 0 }); // the message still waits, at the head
    const delayed = await inbound.queue.getDelayed();
    const wake = delayed.find((job) => job.name === 'wake' && job.data.sessionKey === key);
    expect(wake).toBeDefined();
    expect(wake!.opts.delay).toBe(TURN_RETRY.afterLastAttemptMs);
  });

  it('retries nothing forever: after the last round the turn is abandoned (the turn layer apologizes) and its slot freed', async () => {
    const attempts: number[] = [];
    const abandoned: Array<{ turnId: string; texts: string[] }> = [];
    const { scheduler, inbound } = harness(
      async (request) => {
        attempts.push(request.attempt);
        return { kind: 'retry', error: new Error('poison') };
      },
      2,
      { lateRounds: 2, lateRoundDelayMs: 200, abandonTurn: async ({ turnId, messages }) => void abandoned.push({ turnId, texts: messages.map((message) => message.text) }) },
    );
    const message = inboundMessage({ text: 'never answerable' });
    await inbound.submit(message);
    const key = sessionKeyOf(message);
    await waitFor(async () => abandoned.length === 1, { timeoutMs: 20_000, what: 'the turn to be abandoned' });
    // two rounds of two attempts, then the third round's final attempt abandons it
    expect(attempts).toEqual([1, 2, 1, 2, 1, 2]);
    expect(abandoned[0]!.texts).toEqual(['never answerable']);
    await waitFor(async () => (await scheduler.depth(key)).pending === 0, { timeoutMs: 5_000, what: 'the slot to be freed' });
    expect(await scheduler.depth(key)).toEqual({ pending: 0, active: 0 });
    // and nothing runs it again
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(attempts).toHaveLength(6);
  });

  it('retries a failed turn with the same messages and completes it', async () => {
    const seen: string[][] = [];
    const { scheduler, inbound } = harness(async (request) => {
      seen.push(request.messages.map((message) => message.text));
      return seen.length === 1 ? { kind: 'retry', error: new Error('provider overloaded') } : { kind: 'completed' };
    }, 3);
    const message = inboundMessage({ text: 'try me twice' });
    await inbound.submit(message);
    await waitFor(async () => (await inbound.queue.getCompletedCount()) === 1, { timeoutMs: 10_000, what: 'the retry to complete' });
    expect(seen).toEqual([['try me twice'], ['try me twice']]);
    expect(await scheduler.depth(sessionKeyOf(message))).toEqual({ pending: 0, active: 0 });
  });
});
