import { describe, expect, it } from 'vitest';
import type { LiveReply } from '../../src/core/channel.js';
import { openStatusOnlyReply } from '../../src/turn/status-only-reply.js';

/** A channel's live reply that records what the turn asked of it, and how often one was opened. */
function recordingChannel() {
  const calls: string[] = [];
  let opened = 0;
  const live: LiveReply = {
    update: (text) => void calls.push(`update:${text}`),
    status: (label) => void calls.push(`status:${label ?? '-'}`),
    finish: async (markdown) => (calls.push(`finish:${markdown}`), { messageIds: ['m1'] }),
    discard: async () => void calls.push('discard'),
    leave: async () => void calls.push('leave'),
  };
  return {
    calls,
    opens: () => opened,
    open: () => {
      opened += 1;
      return live;
    },
  };
}

describe('status-only live reply (the answer does not stream)', () => {
  it('opens nothing until a line is due: a turn without one neither opens nor discards anything', async () => {
    const channel = recordingChannel();
    const reply = openStatusOnlyReply(channel.open);
    reply.status(undefined);
    expect(reply.started).toBe(false);
    await reply.discardUnlessFinished();
    expect(channel.opens()).toBe(0);
    expect(channel.calls).toEqual([]);
  });

  it('the first line opens the preview once; later lines edit it; the answer is finished into it', async () => {
    const channel = recordingChannel();
    const reply = openStatusOnlyReply(channel.open);
    reply.status('Searching the web…');
    reply.status('Running `ls`…');
    expect(reply.started).toBe(true);
    expect(await reply.finish('The answer')).toEqual({ messageIds: ['m1'] });
    await reply.discardUnlessFinished();
    expect(channel.opens()).toBe(1);
    expect(channel.calls).toEqual(['status:Searching the web…', 'status:Running `ls`…', 'finish:The answer']);
  });

  it('a silent or failed turn removes the line it showed', async () => {
    const channel = recordingChannel();
    const reply = openStatusOnlyReply(channel.open);
    reply.status('Searching the web…');
    await reply.discardUnlessFinished();
    expect(channel.calls).toEqual(['status:Searching the web…', 'discard']);
  });

  it('parking shows the line, leaves the preview and waits until it is recorded; nothing follows', async () => {
    const channel = recordingChannel();
    let recorded = false;
    const reply = openStatusOnlyReply(channel.open, { recorded: async () => void (recorded = true) });
    await reply.park('Waiting for your approval');
    reply.status('Reading…');
    await reply.discardUnlessFinished();
    expect(recorded).toBe(true);
    expect(channel.calls).toEqual(['status:Waiting for your approval', 'leave']);
  });

  it('a preview an earlier run left is adopted at once: the answer goes into it', async () => {
    const channel = recordingChannel();
    const reply = openStatusOnlyReply(channel.open, { adopt: '42' });
    expect(channel.opens()).toBe(1);
    expect(reply.started).toBe(true);
    await reply.finish('The answer');
    expect(channel.calls).toEqual(['finish:The answer']);
  });
});
