import { describe, expect, it } from 'vitest';
import { completedJob, deadLetterJob, snapshotJobs, workerLabel, type TurnJobOptions } from '../../src/gateway/turns-board-jobs.js';
import type { QueueSnapshot } from '../../src/redis/index.js';
import { inboundMessage } from '../support/messages.js';

const NOW = 1_800_000_000_000;
const message = (text: string) => ({ ...inboundMessage({ text }), sentAt: NOW - 5_000 });
const options = (overrides: Partial<TurnJobOptions> = {}): TurnJobOptions => ({ showText: false, leaseMs: 15_000, limitFor: () => 1, paused: false, ...overrides });

function snapshot(): QueueSnapshot {
  return {
    now: NOW,
    truncated: false,
    workers: [],
    sessions: [
      {
        sessionKey: 'agent:main:telegram:1:dm:42',
        shard: 0,
        dueAt: NOW - 1,
        pending: 1,
        running: 1,
        entries: [{ kind: 'message', id: 'm1', at: NOW - 2_000, album: '', attempt: 1, round: 0, messages: [message('secret plans')] }],
        turns: [{ turnId: 't1', worker: 'vm-1234-0a1b2c3d', parked: false, expiresAt: NOW + 10_000, aborted: false, attempt: 3, round: 0, seq: 1, messages: [message('earlier words')] }],
      },
      {
        sessionKey: 'agent:main:telegram:1:dm:43',
        shard: 0,
        dueAt: NOW + 30_000,
        pending: 1,
        running: 0,
        entries: [{ kind: 'turn', id: 't2', at: NOW + 30_000, album: '', attempt: 2, round: 0, messages: [message('try again')] }],
        turns: [],
      },
    ],
  };
}

describe('the turns entry’s jobs', () => {
  it('name the session, the worker as host/pid, the attempt; hide message text unless asked', () => {
    const [running, waiting, retrying] = snapshotJobs(snapshot(), options());
    expect(running).toMatchObject({ id: 'turn-t1', state: 'active', name: 'Running (attempt 3): Ada · telegram 42', processedBy: 'vm/1234' });
    expect(running!.data).toMatchObject({ worker: 'vm/1234', attempt: 3, leaseAgeMs: 5_000, messageCount: 1 });
    // behind the running turn of a DM: waiting for the slot, not delayed
    expect(waiting).toMatchObject({ state: 'waiting', name: 'Message 1 of 1: Ada · telegram 42' });
    expect(waiting!.data).toMatchObject({ oldestAgeMs: 2_000, why: 'waiting for a slot or a worker, behind 1 running turn' });
    expect(retrying).toMatchObject({ id: 'turn-t2', state: 'delayed', delay: 30_000, name: 'Retrying (attempt 2): Ada · telegram 42' });
    expect(retrying!.data).toMatchObject({ why: 'retry backoff', runsAt: new Date(NOW + 30_000).toISOString() });
    expect(JSON.stringify([running, waiting, retrying])).not.toMatch(/secret plans|earlier words|try again/);

    const shown = snapshotJobs(snapshot(), options({ showText: true }));
    expect(JSON.stringify(shown)).toContain('secret plans');
  });

  it('show what waits as paused while turns are paused', () => {
    const jobs = snapshotJobs(snapshot(), options({ paused: true }));
    expect(jobs.map((job) => job.state)).toEqual(['active', 'paused', 'delayed']);
  });

  it('show a dead letter’s error and every attempt’s reason', () => {
    const job = deadLetterJob(
      {
        id: '0.t3',
        sessionKey: 'agent:main:telegram:1:dm:42',
        messages: [message('lost words')],
        error: 'OpenAI 500',
        failedAt: NOW,
        attempt: 2,
        round: 0,
        attempts: [
          { at: NOW - 2_000, round: 0, attempt: 1, reason: 'OpenAI 503' },
          { at: NOW, round: 0, attempt: 2, reason: 'OpenAI 500' },
        ],
      },
      { showText: false },
    );
    expect(job).toMatchObject({ id: 'dead-0.t3', state: 'failed', failedReason: 'OpenAI 500', deadLetterId: '0.t3', attemptsMade: 2 });
    expect(job.stacktrace).toEqual([`${new Date(NOW - 2_000).toISOString()} round 1, attempt 1: OpenAI 503`, `${new Date(NOW).toISOString()} round 1, attempt 2: OpenAI 500`]);
    expect(JSON.stringify(job)).not.toContain('lost words');
    expect(workerLabel('not-a-worker-id')).toBe('not-a-worker-id');
  });

  it('show a stored turn of the last day by what its run recorded, its status in the name', () => {
    const run = {
      runId: 'r1',
      status: 'failed',
      sessionKey: 'agent:main:telegram:1:group:-100',
      channel: 'telegram' as const,
      chatId: '-100',
      title: 'Team room',
      model: 'gpt-test',
      startedAt: new Date('2026-12-07T10:00:00Z'),
      finishedAt: new Date('2026-12-07T10:00:02Z'),
      durationMs: 2000,
      inputTokens: 120,
      outputTokens: 8,
      costUsd: 0.0001,
      error: 'delivery failed: chat not found',
    };
    const job = completedJob(run);
    expect(job).toMatchObject({ id: 'run-r1', state: 'completed', name: 'Ended (failed): Team room · telegram -100', finishedOn: Date.parse('2026-12-07T10:00:02Z') });
    expect(job.data).toMatchObject({ chatId: '-100', status: 'failed', error: 'delivery failed: chat not found', inputTokens: 120 });
    expect(completedJob({ ...run, status: 'completed', title: null, error: null }).name).toBe('Answered: telegram -100');
  });
});
