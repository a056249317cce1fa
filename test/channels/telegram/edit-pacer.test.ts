import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEditPacer } from '../../../channels/telegram/edit-pacer.js';

describe('edit pacer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('spaces the edits of one chat by the interval, and holds off after a retry_after', () => {
    const pacer = createEditPacer(200);
    expect(pacer.waitMs('chat')).toBe(0);
    pacer.took('chat');
    expect(pacer.waitMs('chat')).toBe(200);
    expect(pacer.waitMs('other chat')).toBe(0);
    vi.advanceTimersByTime(200);
    expect(pacer.waitMs('chat')).toBe(0);
    pacer.holdOff('chat', 5_000);
    expect(pacer.waitMs('chat')).toBe(5_000);
  });

  it('lets two replies of one chat take turns: the last taker yields a free slot to a reply that is waiting', () => {
    const pacer = createEditPacer(200);
    expect(pacer.waitMs('chat', 'a')).toBe(0);
    pacer.took('chat', 'a');
    expect(pacer.waitMs('chat', 'b')).toBe(200);
    vi.advanceTimersByTime(200);
    // the slot is free; a asks first but had the last one, so b goes
    expect(pacer.waitMs('chat', 'a')).toBeGreaterThan(0);
    expect(pacer.waitMs('chat', 'b')).toBe(0);
    pacer.took('chat', 'b');
    vi.advanceTimersByTime(200);
    expect(pacer.waitMs('chat', 'b')).toBeGreaterThan(0);
    expect(pacer.waitMs('chat', 'a')).toBe(0);
    pacer.took('chat', 'a');
    // once b is done, a has the chat to itself again
    pacer.leave('chat', 'b');
    vi.advanceTimersByTime(200);
    expect(pacer.waitMs('chat', 'a')).toBe(0);
  });
});
