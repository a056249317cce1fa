import { describe, expect, it } from 'vitest';
import { ReconnectPolicy } from '../../src/mcp/reconnect-policy.js';

describe('MCP reconnect policy', () => {
  it('doubles the wait up to the cap, starts over after a stable connection, and reports a streak once', () => {
    let now = 0;
    const policy = new ReconnectPolicy({ initialMs: 1_000, maxMs: 5_000 }, 30_000, () => now);
    const waits = [policy.failed(), policy.failed(), policy.failed(), policy.failed()];
    expect(waits.map((wait) => wait.delayMs)).toEqual([1_000, 2_000, 4_000, 5_000]);
    expect(waits.map((wait) => wait.firstFailure)).toEqual([true, false, false, false]);
    expect(waits.map((wait) => wait.attempt)).toEqual([1, 2, 3, 4]);

    now = 12_000;
    expect(policy.connected()).toBe(12_000); // down since the first failure at 0
    now += 10_000; // up 10 s: not stable, the backoff goes on
    policy.lostWhileUp();
    expect(policy.failed()).toMatchObject({ delayMs: 5_000, firstFailure: true });

    policy.connected();
    now += 30_000; // up 30 s: stable, the backoff starts over
    policy.lostWhileUp();
    expect(policy.failed()).toMatchObject({ delayMs: 1_000, attempt: 1 });
  });

  it('says nothing about downtime when the server never failed', () => {
    const policy = new ReconnectPolicy({ initialMs: 1_000, maxMs: 60_000 }, 30_000, () => 5);
    expect(policy.connected()).toBeUndefined();
  });
});
