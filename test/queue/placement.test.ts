import { describe, expect, it } from 'vitest';
import { sessionKeyOf } from '../../src/core/session-key.js';
import type { TurnOutcome } from '../../src/core/turn-contract.js';
import type { SessionPlacement } from '../../src/redis/worker-roster.js';
import { waitFor } from '../support/service-process.js';
import { inboundMessage } from '../support/messages.js';
import { queueDeployments } from './support/queue-deployment.js';

const deployment = queueDeployments();
// far longer than any wait below: a turn that ran on another worker than its session's got there only because
// that worker could not take it (stopped, dead), never by the fallback schedule
const GRACE_MS = 60_000;

/** Every session goes to the worker `worker` says, once known. */
function placementOn(): SessionPlacement & { worker: string | undefined } {
  return {
    worker: undefined,
    workerFor() {
      return this.worker;
    },
  };
}

describe('QueueWorker: a session’s turns run on its own worker', () => {
  it('runs every turn of a session on the worker the roster places it on (its history is cached there)', async () => {
    const { queue, worker, roster } = deployment({ placement: 'roster', placementGraceMs: GRACE_MS });
    const ranOn = new Map<string, string[]>();
    const names = new Map<string, string>();
    for (const name of ['a', 'b']) {
      const instance = worker(async (request) => {
        ranOn.set(request.sessionKey, [...(ranOn.get(request.sessionKey) ?? []), name]);
        return { kind: 'completed' };
      });
      await instance.start();
      names.set(instance.workerId, name);
    }
    await waitFor(async () => (roster!.workers.length === 2 ? true : undefined), { timeoutMs: 5_000, what: 'both workers in the roster' });
    const senders = Array.from({ length: 12 }, (_, index) => ({ id: `u${index}` }));
    const turns = () => [...ranOn.values()].reduce((sum, list) => sum + list.length, 0);
    for (let round = 1; round <= 3; round++) {
      for (const sender of senders) {
        const message = inboundMessage({ sender });
        await queue.enqueue(sessionKeyOf(message), message);
      }
      await waitFor(async () => (turns() === round * senders.length ? true : undefined), { timeoutMs: 5_000, what: `round ${round}` });
    }
    for (const [sessionKey, list] of ranOn) {
      const own = names.get(roster!.workerFor(sessionKey)!);
      expect(list).toEqual([own, own, own]);
    }
    // both workers have sessions of their own
    expect(new Set([...ranOn.values()].map((list) => list[0])).size).toBe(2);
  });

  it('a session waiting for a worker that died goes to another one when the dead worker is reaped', async () => {
    const placement = placementOn();
    const { queue, worker } = deployment({ placement, placementGraceMs: GRACE_MS });
    const ran: string[] = [];
    const returning = inboundMessage({ sender: { id: 'returning' } });
    const key = sessionKeyOf(returning);
    const a = worker(
      async (request) => {
        ran.push(`a:${request.sessionKey === key ? 'returning' : 'other'}`);
        // A's one slot is taken for good by the other session's turn
        return new Promise<TurnOutcome>(() => {});
      },
      { concurrency: 1 },
    );
    await a.start();
    placement.worker = a.workerId;
    const other = inboundMessage({ sender: { id: 'other' } });
    await queue.enqueue(sessionKeyOf(other), other);
    await waitFor(async () => (ran.length === 1 ? true : undefined), { timeoutMs: 5_000, what: 'A’s slot taken' });
    // placed on A, which beats: the message waits in A's preferred set, A having no free slot
    await queue.enqueue(key, returning);
    const b = worker(async (request) => {
      ran.push(`b:${request.sessionKey === key ? 'returning' : 'other'}`);
      return { kind: 'completed' };
    });
    await b.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ran).toEqual(['a:other']);
    const diedAt = Date.now();
    await a.die();
    await waitFor(async () => (ran.includes('b:returning') ? true : undefined), { timeoutMs: 10_000, what: 'the reaped worker’s session' });
    // the beat lasts 1 s here: reaped within a few, not after the minute of the fallback; A's turn is taken over too
    expect(Date.now() - diedAt).toBeLessThan(5_000);
    await waitFor(async () => (ran.includes('b:other') ? true : undefined), { timeoutMs: 5_000, what: 'the takeover of A’s turn' });
  });

  /**
   * A holds the session's turn while its next message arrives, B starts, and A shuts down (its turn finishing during
   * the close, its release leaving the waiting message in A's preferred set): what ran, on which worker.
   * `lostPop`: A's own last blocking pop takes the session from that set and its reply is lost with the connection.
   */
  async function stopWhileASessionWaits(options: { lostPop?: boolean } = {}): Promise<string[]> {
    const placement = placementOn();
    const { queue, worker, redis } = deployment({ placement, placementGraceMs: GRACE_MS });
    const message = inboundMessage({ sender: { id: 'returning' } });
    const key = sessionKeyOf(message);
    const ran: string[] = [];
    let letGo: (() => void) | undefined;
    const a = worker(
      async (request) => {
        ran.push(`a:${request.messages.length}`);
        // A's turn holds until the test lets it go, while the session's next message arrives
        await new Promise<void>((resolve) => (letGo = resolve));
        return { kind: 'completed' };
      },
      options.lostPop ? { releases: { releasing: () => {}, released: () => void redis.zrem(queue.keys.session(key).preferred(a.workerId), key) } } : {},
    );
    await a.start();
    placement.worker = a.workerId;
    await queue.enqueue(key, message);
    await waitFor(async () => (ran.length === 1 ? true : undefined), { timeoutMs: 5_000, what: 'A’s turn' });
    await queue.enqueue(key, inboundMessage({ sender: { id: 'returning' } }));
    const b = worker(async (request) => {
      ran.push(`b:${request.messages.length}`);
      return { kind: 'completed' };
    });
    await b.start();
    const closing = a.close();
    letGo!();
    await closing;
    // at once, not after the placement grace (a minute here)
    await waitFor(async () => (ran.includes('b:1') ? true : undefined), { timeoutMs: 4_000, what: 'the session at another worker' });
    return ran;
  }

  it('a pop that returns after its worker began to stop hands its sessions to the others at once, unrun there', async () => {
    const { queue, worker } = deployment({ placementGraceMs: GRACE_MS });
    const ran: string[] = [];
    let holding = false;
    let letPopReturn!: () => void;
    const popReturns = new Promise<void>((resolve) => (letPopReturn = resolve));
    const a = worker(
      async () => {
        ran.push('a');
        return { kind: 'completed' };
      },
      {
        // A's pop that finds the session is answered only once A has begun to stop
        adjustQueue: (workerQueue) => {
          const pop = workerQueue.popDue.bind(workerQueue);
          workerQueue.popDue = async (...args) => {
            const due = await pop(...args);
            if (due.sessionKeys.length > 0) {
              holding = true;
              await popReturns;
            }
            return due;
          };
        },
      },
    );
    const message = inboundMessage();
    await queue.enqueue(sessionKeyOf(message), message);
    await a.start();
    await waitFor(async () => (holding ? true : undefined), { timeoutMs: 5_000, what: 'A’s pop of the session' });
    const closing = a.close();
    letPopReturn();
    await closing;
    const b = worker(async () => {
      ran.push('b');
      return { kind: 'completed' };
    });
    await b.start();
    // at once: not after the pop's claim (the 30 s lease) ran out
    await waitFor(async () => (ran.includes('b') ? true : undefined), { timeoutMs: 4_000, what: 'the session at another worker' });
    expect(ran).toEqual(['b']);
  });

  it('a worker that shuts down hands the sessions waiting for it to the others', async () => {
    expect(await stopWhileASessionWaits()).toEqual(['a:1', 'b:1']);
  });

  it('a session a stopping worker releases reaches the others at once even if the worker’s own last pop takes it from its set', async () => {
    expect(await stopWhileASessionWaits({ lostPop: true })).toEqual(['a:1', 'b:1']);
  });
});
