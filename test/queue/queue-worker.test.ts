import { describe, expect, it } from 'vitest';
import { sessionKeyOf } from '../../src/core/session-key.js';
import type { TurnOutcome, TurnRequest } from '../../src/core/turn-contract.js';
import { waitFor } from '../support/service-process.js';
import { inboundMessage } from '../support/messages.js';
import { queueDeployments } from './support/queue-deployment.js';
import { DeadLetters } from '../../src/redis/dead-letters.js';

const deployment = queueDeployments();

describe('QueueWorker', () => {
  it('runs each message as a turn and releases the session', async () => {
    const { queue, worker } = deployment();
    const seen: string[] = [];
    const instance = worker(async (request) => {
      seen.push(...request.messages.map((message) => message.text));
      return { kind: 'completed' };
    });
    await instance.start();
    const messages = Array.from({ length: 5 }, (_, index) => inboundMessage({ sender: { id: `u${index}` } }));
    for (const message of messages) await queue.enqueue(sessionKeyOf(message), message);
    await waitFor(async () => (seen.length === 5 ? true : undefined), { timeoutMs: 5_000, what: 'five turns' });
    expect(seen.sort()).toEqual(messages.map((message) => message.text).sort());
    for (const message of messages) expect(await queue.depth(sessionKeyOf(message))).toEqual({ pending: 0, active: 0 });
  });

  it('tells the session cache of a release before it is sent, with the version the release then writes', async () => {
    const { queue, worker, redis } = deployment();
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    const versions: Array<string | undefined> = [];
    const releasing: Array<{ next: string | undefined; versionInRedis: Promise<string | null> }> = [];
    const released: Array<{ next: string | undefined; version: string | undefined }> = [];
    const instance = worker(
      async (request) => {
        versions.push(request.historyVersion);
        return { kind: 'completed' };
      },
      {
        releases: {
          // asked on the queue's own connection: answered before the release script that follows runs
          releasing: ({ next }) => releasing.push({ next, versionInRedis: redis.hget(queue.keys.session(key).meta, 'hv') }),
          released: ({ next, version }) => released.push({ next, version }),
        },
      },
    );
    await instance.start();
    await queue.enqueue(key, message);
    await waitFor(async () => (released.length === 1 ? true : undefined), { timeoutMs: 5_000, what: 'the release' });
    const next = releasing[0]!.next;
    expect(next).toEqual(expect.any(String));
    expect(await releasing[0]!.versionInRedis).toBeNull();
    expect(released[0]).toEqual({ next, version: next });
    // the session's next turn starts from the version the cache was told of
    await queue.enqueue(key, inboundMessage());
    await waitFor(async () => (released.length === 2 ? true : undefined), { timeoutMs: 5_000, what: 'the second release' });
    expect(versions).toEqual(['', next]);
    expect(await releasing[1]!.versionInRedis).toBe(next);
  });

  it('retries a failed turn with the same messages and completes it', async () => {
    const { queue, worker } = deployment();
    const attempts: number[] = [];
    const instance = worker(async (request) => {
      attempts.push(request.attempt);
      return request.attempt === 1 ? { kind: 'retry', error: new Error('provider down') } : { kind: 'completed' };
    }, { firstDelayMs: 100 });
    await instance.start();
    const message = inboundMessage();
    await queue.enqueue(sessionKeyOf(message), message);
    await waitFor(async () => (attempts.length === 2 ? true : undefined), { timeoutMs: 10_000, what: 'the retry' });
    expect(attempts).toEqual([1, 2]);
  });

  it('does not leave a turn behind: after the last attempt of a round it waits for the next round, then is abandoned', async () => {
    const { queue, worker } = deployment();
    const attempts: Array<[number, number]> = [];
    const abandoned: string[] = [];
    const instance = worker(
      async (request) => {
        attempts.push([request.attempt, attempts.length]);
        return { kind: 'retry', error: new Error('database unreachable') };
      },
      { attempts: 2, firstDelayMs: 100, lateRounds: 1, lateRoundDelayMs: 300, abandonTurn: async ({ messages }) => void abandoned.push(...messages.map((m) => m.text)) },
    );
    await instance.start();
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    await queue.enqueue(key, message);
    await waitFor(async () => (abandoned.length === 1 ? true : undefined), { timeoutMs: 15_000, what: 'the abandoned turn' });
    // two attempts, a late round of two more, then the end: nothing retried forever, and the slot is free
    expect(attempts.map(([attempt]) => attempt)).toEqual([1, 2, 1, 2]);
    expect(abandoned).toEqual([message.text]);
    expect(await queue.depth(key)).toEqual({ pending: 0, active: 0 });
  });

  it('keeps a turn failing every round as a dead letter with every attempt’s reason, and tells its user once, early, how long it keeps trying', async () => {
    const { queue, worker, redis } = deployment();
    const attempts: number[] = [];
    const notices: Array<{ attempt: number; retryForMs: number }> = [];
    const ended: Array<{ texts: string[]; triedForMs: number | undefined }> = [];
    const instance = worker(
      async (request) => {
        attempts.push(request.attempt);
        return { kind: 'retry', error: new Error(`model down on attempt ${request.attempt}`) };
      },
      {
        attempts: 3,
        firstDelayMs: 500,
        lateRounds: 1,
        lateRoundDelayMs: 200,
        // 0.5 s, then 1 s of backoff: the second failure is the last one whose next attempt still comes within 1.25 s
        failingNoticeMs: 1_250,
        notifyFailing: async ({ retryForMs }) => void notices.push({ attempt: attempts.length, retryForMs }),
        abandonTurn: async ({ messages, triedForMs }) => void ended.push({ texts: messages.map((m) => m.text), triedForMs }),
      },
    );
    await instance.start();
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    await queue.enqueue(key, message);
    await waitFor(async () => (ended.length === 1 ? true : undefined), { timeoutMs: 30_000, what: 'the abandoned turn' });
    expect(attempts).toEqual([1, 2, 3, 1, 2, 3]);
    // told at the second failure (asked again at each later one: the notifier sends once per turn), with the whole
    // period still ahead: 0.5 + 1 s a round, two rounds, 0.2 s between them, less the 0.5 s already past
    expect(notices[0]).toMatchObject({ attempt: 2 });
    expect(notices[0]!.retryForMs).toBeGreaterThan(2_000);
    expect(notices[0]!.retryForMs).toBeLessThanOrEqual(3_200);
    expect(ended[0]!.texts).toEqual([message.text]);
    expect(ended[0]!.triedForMs).toBeGreaterThan(3_000);
    const letters = new DeadLetters(redis, queue.keys);
    const [letter] = await letters.list(0, 9);
    expect(letter).toMatchObject({ sessionKey: key, error: 'model down on attempt 3', round: 1, attempt: 3 });
    expect(letter!.attempts.map(({ round, attempt, reason }) => `${round}.${attempt} ${reason}`)).toEqual([
      '0.1 model down on attempt 1',
      '0.2 model down on attempt 2',
      '0.3 model down on attempt 3',
      '1.1 model down on attempt 1',
      '1.2 model down on attempt 2',
      '1.3 model down on attempt 3',
    ]);
    expect(await queue.depth(key)).toEqual({ pending: 0, active: 0 });
  }, 40_000);

  it('a turn marked stopped before it could park ends through its own stop path and frees the session', async () => {
    const { queue, worker } = deployment();
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    const ended: string[] = [];
    const instance = worker(async () => {
      // the /stop lands between the turn's last look at its signal and the queue's park: only the mark in Redis says so
      await queue.stop(key);
      const outcome: TurnOutcome = {
        kind: 'parked',
        untilMs: Date.now() + 60_000,
        stopped: async () => {
          ended.push('cancelled');
          return { kind: 'cancelled' };
        },
      };
      return outcome;
    });
    await instance.start();
    await queue.enqueue(key, message);
    await waitFor(async () => (ended.length === 1 ? true : undefined), { timeoutMs: 5_000, what: 'the stopped turn ended' });
    await waitFor(async () => ((await queue.depth(key)).active === 0 ? true : undefined), { timeoutMs: 5_000, what: 'the session freed' });
    expect(ended).toEqual(['cancelled']);
  });

  it('takes over the turns of a worker that died mid-turn within the beat’s deadline, not the turn’s lease', async () => {
    const { queue, worker } = deployment();
    let firstStarted = false;
    const doomed = worker(async () => {
      firstStarted = true;
      return new Promise<TurnOutcome>(() => {});
    });
    await doomed.start();
    const message = inboundMessage();
    await queue.enqueue(sessionKeyOf(message), message);
    await waitFor(async () => (firstStarted ? true : undefined), { timeoutMs: 5_000, what: 'the first turn to start' });
    const resumed: TurnRequest[] = [];
    const survivor = worker(async (request) => {
      resumed.push(request);
      return { kind: 'completed' };
    });
    await survivor.start();
    const diedAt = Date.now();
    await doomed.die();
    await waitFor(async () => (resumed.length === 1 ? true : undefined), { timeoutMs: 10_000, what: 'the takeover' });
    // the beat lasts 1 s here (5 s by default); the turn's lease is 30 s
    expect(Date.now() - diedAt).toBeLessThan(5_000);
    expect(resumed[0]).toMatchObject({ resumed: true, attempt: 2 });
    expect(resumed[0]!.messages.map((m) => m.text)).toEqual([message.text]);
  });

  it('hands running turns back on shutdown, and another worker finishes them', async () => {
    const { queue, worker } = deployment();
    const runs: string[] = [];
    const first = worker(async (request) => {
      runs.push(`first:${request.attempt}`);
      await new Promise((resolve) => request.signal.addEventListener('abort', resolve));
      return { kind: 'retry', error: request.signal.reason };
    });
    await first.start();
    const message = inboundMessage();
    await queue.enqueue(sessionKeyOf(message), message);
    await waitFor(async () => (runs.length === 1 ? true : undefined), { timeoutMs: 5_000, what: 'the first run' });
    await first.close();
    const second = worker(async (request) => {
      runs.push(`second:${request.attempt}:${request.resumed}`);
      return { kind: 'completed' };
    });
    await second.start();
    await waitFor(async () => (runs.length === 2 ? true : undefined), { timeoutMs: 5_000, what: 'the handed-back turn' });
    // handed back without using an attempt
    expect(runs).toEqual(['first:1', 'second:1:true']);
  });
});
