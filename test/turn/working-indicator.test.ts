import { describe, expect, it } from 'vitest';
import type { WorkingIndicator } from '../../src/core/channel.js';
import { startWorkingAfter } from '../../src/turn/working-indicator.js';

function recordingIndicator(log: string[], showsStatus: boolean): () => WorkingIndicator {
  return () => {
    log.push('start');
    return {
      async stop() {
        log.push('stop');
      },
      status(label) {
        log.push(`status:${label ?? ''}`);
        return showsStatus;
      },
    };
  };
}

describe('startWorkingAfter', () => {
  it('never starts the indicator for a turn that ends before the delay', async () => {
    const log: string[] = [];
    const working = startWorkingAfter(recordingIndicator(log, true), 60_000);
    await working.stop();
    expect(log).toEqual([]);
  });

  it('starts the indicator at the first progress line, before the delay, and forwards the line', async () => {
    const log: string[] = [];
    const working = startWorkingAfter(recordingIndicator(log, true), 60_000);
    expect(working.status?.('Running `ls`…')).toBe(true);
    expect(working.status?.(undefined)).toBe(true);
    await working.stop();
    expect(log).toEqual(['start', 'status:Running `ls`…', 'status:', 'stop']);
  });

  it('does not start the indicator to clear a line it never showed, nor after stop', async () => {
    const log: string[] = [];
    const working = startWorkingAfter(recordingIndicator(log, false), 60_000);
    expect(working.status?.(undefined)).toBe(false);
    await working.stop();
    expect(working.status?.('late')).toBe(false);
    expect(log).toEqual([]);
  });
});
