import { describe, expect, it } from 'vitest';
import { ProcessActivity } from '../../src/lifecycle/process-activity.js';

describe('process activity', () => {
  it('counts work under way until it ends, however it ends', async () => {
    const activity = new ProcessActivity();
    let finish!: () => void;
    const pending = activity.during(() => new Promise<void>((resolve) => (finish = resolve)));
    const failing = activity.during(() => Promise.reject(new Error('turn failed')));
    expect(activity.running).toBe(2);
    await expect(failing).rejects.toThrow('turn failed');
    expect(activity.running).toBe(1);
    finish();
    await pending;
    expect(activity.running).toBe(0);
  });

  it('ends a unit once, however often its end is called', () => {
    const activity = new ProcessActivity();
    const end = activity.begin();
    activity.begin();
    end();
    end();
    expect(activity.running).toBe(1);
  });

  it('answers busy for an interval in which work ran or began, even work that already ended', () => {
    const activity = new ProcessActivity();
    const busy = activity.busyProbe();
    expect(busy()).toBe(false);
    activity.begin()();
    // began and ended between two looks: a message handled in a few ms still counts
    expect(busy()).toBe(true);
    expect(busy()).toBe(false);
    const end = activity.begin();
    expect(busy()).toBe(true);
    // still running: busy again although nothing new began
    expect(busy()).toBe(true);
    end();
    expect(busy()).toBe(false);
  });

  it('gives each probe its own view', () => {
    const activity = new ProcessActivity();
    const first = activity.busyProbe();
    activity.begin()();
    const second = activity.busyProbe();
    expect(second()).toBe(false);
    expect(first()).toBe(true);
  });
});
