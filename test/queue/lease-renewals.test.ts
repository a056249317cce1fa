import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { sessionKeyOf } from '../../src/core/session-key.js';
import { luaSource } from '../../src/redis/lua-source.js';
import { testRedisTarget } from '../support/services.js';
import { waitFor } from '../support/service-process.js';
import { inboundMessage } from '../support/messages.js';
import { queueDeployments } from './support/queue-deployment.js';

const deployment = queueDeployments();
const RENEW_SHA = createHash('sha1').update(luaSource('renew')).digest('hex');
/** A lease of 900 ms: renewals every 300 ms. */
const LEASE_MS = 900;
const STAGGER_MS = 120;

/**
 * The lease renewals of a worker's running turns leave on one timer, together (src/queue/lease-renewals.ts), not each
 * on a timer of its own turn: three turns started 120 ms apart are renewed in the same tick, seen in the order Redis
 * ran the renew scripts (MONITOR).
 */
describe.skipIf(testRedisTarget().cluster)('lease renewals of one worker', () => {
  it('renew every running turn in one tick, and not a turn quicker than a period', async () => {
    const { queue, worker } = deployment();
    const monitor = new Redis(testRedisTarget().url);
    const renewals: Array<{ at: number; turnId: string }> = [];
    const watching = await monitor.monitor();
    watching.on('monitor', (time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === 'evalsha' && args[1] === RENEW_SHA) renewals.push({ at: Number(time) * 1000, turnId: args[5]! });
    });
    try {
      const started: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const instance = worker(
        async (request) => {
          started.push(request.turnId);
          if (request.messages[0]!.text === 'quick') return { kind: 'completed' };
          await held;
          return { kind: 'completed' };
        },
        { leaseMs: LEASE_MS },
      );
      await instance.start();
      const quick = inboundMessage({ sender: { id: 'quick' }, text: 'quick' });
      await queue.enqueue(sessionKeyOf(quick), quick);
      await waitFor(() => (started.length === 1 ? true : undefined), { timeoutMs: 5_000, what: 'the quick turn' });
      const quickTurn = started[0]!;
      for (let index = 0; index < 3; index++) {
        const message = inboundMessage({ sender: { id: `u${index}` }, text: `slow ${index}` });
        await queue.enqueue(sessionKeyOf(message), message);
        await waitFor(() => (started.length === index + 2 ? true : undefined), { timeoutMs: 5_000, what: `turn ${index}` });
        await new Promise((resolve) => setTimeout(resolve, STAGGER_MS));
      }
      const slowTurns = started.slice(1);
      // each slow turn renewed twice at least
      await waitFor(() => (slowTurns.every((turnId) => renewals.filter((renewal) => renewal.turnId === turnId).length >= 2) ? true : undefined), {
        timeoutMs: 10_000,
        what: 'two renewals of each turn',
      });
      release();
      // the renewals in ticks: a gap of more than a third of the stagger starts another
      const ticks: Array<Set<string>> = [];
      let last = -Infinity;
      for (const renewal of renewals) {
        if (renewal.at - last > STAGGER_MS / 3) ticks.push(new Set());
        ticks.at(-1)!.add(renewal.turnId);
        last = renewal.at;
      }
      expect(ticks.at(-1)).toEqual(new Set(slowTurns));
      expect(renewals.some((renewal) => renewal.turnId === quickTurn)).toBe(false);
    } finally {
      monitor.disconnect();
    }
  }, 30_000);
});
