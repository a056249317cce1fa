import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from '../../../channels/slack/format.js';
import type { Channel, ConversationRef, LiveReply } from '../../../src/core/index.js';
import { startSlackDouble, type SlackDouble } from '../../doubles/slack-double.js';
import { startSlackChannel, waitFor } from './channel-fixture.js';

const TEAM = 'T0TEAM01';
const assistantThread: ConversationRef = { channel: 'slack', accountId: TEAM, chatId: 'D0ALICE01', chatType: 'dm', threadId: '1700000000.000001', messageId: '1700000100.000100' };
const dm: ConversationRef = { channel: 'slack', accountId: TEAM, chatId: 'D0ALICE01', chatType: 'dm', messageId: '1700000100.000100' };
const thread: ConversationRef = { channel: 'slack', accountId: TEAM, chatId: 'C0GENERAL', chatType: 'group', threadId: '1700000100.000200', messageId: '1700000100.000200' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('slack working indicator', () => {
  let double: SlackDouble;
  let channel: Channel;

  beforeEach(async () => {
    double = await startSlackDouble();
    channel = await startSlackChannel(double);
  });
  afterEach(() => double.close());

  it('sets the assistant thread status and clears it at stop', async () => {
    const indicator = channel.startWorking(assistantThread);
    await waitFor(() => double.callsOf('assistant.threads.setStatus').length === 1);
    await indicator.stop();
    expect(double.callsOf('assistant.threads.setStatus').map((call) => call.params)).toEqual([
      { channel_id: 'D0ALICE01', thread_ts: assistantThread.threadId, status: 'is thinking…' },
      { channel_id: 'D0ALICE01', thread_ts: assistantThread.threadId, status: '' },
    ]);
    expect(double.callsOf('reactions.add')).toHaveLength(0);
  });

  it('shows the progress line as the assistant status, the latest line winning, and clears it at stop', async () => {
    const indicator = channel.startWorking(assistantThread);
    expect(indicator.status!('Searching the web…')).toBe(true);
    // set before the first could go out: only the latest of them is sent
    indicator.status!('Running `ls`…');
    indicator.status!('Reading `notes.md`…');
    await waitFor(() => double.callsOf('assistant.threads.setStatus').some((call) => call.params.status === 'Reading `notes.md`…'));
    indicator.status!(undefined);
    await waitFor(() => double.callsOf('assistant.threads.setStatus').length === 3);
    await indicator.stop();
    expect(indicator.status!('too late')).toBe(false);
    expect(double.callsOf('assistant.threads.setStatus').map((call) => call.params.status)).toEqual(['is thinking…', 'Reading `notes.md`…', 'is thinking…', '']);
  });

  it('leaves the progress line to the live reply where there is no assistant status', async () => {
    for (const to of [thread, dm]) {
      const indicator = channel.startWorking(to);
      expect(indicator.status!('Searching the web…')).toBe(false);
      await indicator.stop();
    }
    expect(double.callsOf('assistant.threads.setStatus')).toHaveLength(0);
  });

  it('falls back to a reaction on the triggering message when the status is not allowed, and removes it', async () => {
    double.setAssistantThreads(false);
    const indicator = channel.startWorking(assistantThread);
    await waitFor(() => double.reactions.size === 1);
    expect(double.callsOf('assistant.threads.setStatus')[0]?.failed).toBe(true);
    expect(double.callsOf('reactions.add')[0]?.params).toMatchObject({ channel: 'D0ALICE01', timestamp: assistantThread.messageId, name: 'eyes' });
    await indicator.stop();
    expect(double.callsOf('reactions.remove')[0]?.params).toMatchObject({ channel: 'D0ALICE01', timestamp: assistantThread.messageId, name: 'eyes' });
    expect(double.reactions.size).toBe(0);
  });

  it('uses the reaction directly in channels and in top-level DMs', async () => {
    for (const to of [thread, dm]) {
      const indicator = channel.startWorking(to);
      await waitFor(() => double.reactions.size === 1);
      await indicator.stop();
      expect(double.reactions.size).toBe(0);
    }
    expect(double.callsOf('assistant.threads.setStatus')).toHaveLength(0);
  });

  it('removes a reaction even when stop comes before it is set', async () => {
    const indicator = channel.startWorking(thread);
    await indicator.stop();
    expect(double.callsOf('reactions.remove')).toHaveLength(1);
    expect(double.reactions.size).toBe(0);
  });

  it('only logs a failing indicator', async () => {
    double.failNext('reactions.add', { error: 'missing_scope' });
    const indicator = channel.startWorking(thread);
    await waitFor(() => double.callsOf('reactions.add').length === 1);
    await indicator.stop();
    expect(double.callsOf('reactions.remove')).toHaveLength(0);
  });
});

describe('slack live reply', () => {
  let double: SlackDouble;
  let channel: Channel;

  beforeEach(async () => {
    double = await startSlackDouble();
    channel = await startSlackChannel(double);
  });
  afterEach(() => double.close());

  /** Streams `steps` updates of a growing answer, one every `everyMs`. */
  async function stream(reply: LiveReply, steps: number, everyMs: number, piece = (index: number) => `word${index} `): Promise<string> {
    let text = '';
    for (let index = 0; index < steps; index += 1) {
      text += piece(index);
      reply.update(text);
      await sleep(everyMs);
    }
    return text;
  }

  it('posts a placeholder, edits it at most about once a second, and ends with the final formatted text', async () => {
    const reply = channel.openLiveReply!(thread)!;
    const text = await stream(reply, 30, 100, (index) => (index === 0 ? '**Answer:** ' : `part ${index} `));
    const final = `${text}\n\n- done`;
    const receipt = await reply.finish(final);

    const posts = double.callsOf('chat.postMessage');
    const edits = double.callsOf('chat.update');
    expect(posts).toHaveLength(1);
    expect(posts[0]?.params).toMatchObject({ channel: 'C0GENERAL', thread_ts: thread.threadId, text: '*Answer:*' });
    expect(edits.length).toBeGreaterThanOrEqual(2);
    expect(edits.length).toBeLessThanOrEqual(5);
    const starts = [posts[0]!, ...edits].map((call) => call.at);
    for (let index = 1; index < starts.length - 1; index += 1) expect(starts[index]! - starts[index - 1]!).toBeGreaterThanOrEqual(950);
    for (const edit of edits) expect(edit.params.ts).toBe(receipt.messageIds[0]);
    expect(edits.at(-1)?.params.text).toBe(markdownToMrkdwn(final));
    const placeholder = [...double.messages.values()][0];
    expect(receipt.messageIds).toEqual([placeholder?.ts]);
    expect(placeholder?.text).toBe(markdownToMrkdwn(final));
  });

  it('keeps each preview under 4,000 characters and posts the rest of a long final answer', async () => {
    const reply = channel.openLiveReply!(dm)!;
    const paragraph = (index: number) => `Paragraph ${index}: ${'lorem ipsum '.repeat(40)}\n\n`;
    const text = await stream(reply, 25, 60, paragraph);
    expect(text.length).toBeGreaterThan(10_000);
    const receipt = await reply.finish(text);
    for (const call of [...double.callsOf('chat.postMessage'), ...double.callsOf('chat.update')]) {
      expect(String(call.params.text).length).toBeLessThanOrEqual(4000);
    }
    expect(receipt.messageIds.length).toBeGreaterThanOrEqual(3);
    expect(double.callsOf('chat.update').some((call) => String(call.params.text).startsWith('…\nParagraph'))).toBe(true);
    expect(double.callsOf('chat.update').at(-1)?.params.text).toMatch(/^Paragraph 0:/);
    expect(double.callsOf('chat.postMessage')).toHaveLength(receipt.messageIds.length);
  });

  it('discard deletes the placeholder and nothing is edited afterwards', async () => {
    const reply = channel.openLiveReply!(thread)!;
    await stream(reply, 5, 50);
    await reply.discard();
    reply.update('too late');
    await sleep(1200);
    const placeholders = [...double.messages.values()];
    expect(placeholders).toHaveLength(1);
    expect(placeholders[0]?.deleted).toBe(true);
    expect(double.callsOf('chat.delete').map((call) => call.params)).toEqual([{ channel: 'C0GENERAL', ts: placeholders[0]?.ts }]);
    expect(double.callsOf('chat.update').every((call) => call.params.text !== 'too late')).toBe(true);
  });

  it('posts normally when nothing was streamed, and leaves nothing for a silent answer', async () => {
    const normal = channel.openLiveReply!(dm)!;
    expect((await normal.finish('short')).messageIds).toHaveLength(1);
    expect(double.callsOf('chat.update')).toHaveLength(0);

    const silent = channel.openLiveReply!(dm)!;
    await silent.discard();
    expect(double.callsOf('chat.postMessage')).toHaveLength(1);
    expect(double.callsOf('chat.delete')).toHaveLength(0);
  });

  it('posts the answer and removes the stale placeholder when the final edit fails', async () => {
    const reply = channel.openLiveReply!(thread)!;
    reply.update('draft');
    await waitFor(() => double.callsOf('chat.postMessage').length === 1);
    double.failNext('chat.update', { error: 'cant_update_message', times: 5 });
    const receipt = await reply.finish('the final answer');
    const posts = double.callsOf('chat.postMessage');
    expect(posts.map((call) => call.params.text)).toEqual(['draft', 'the final answer']);
    expect(receipt.messageIds).toHaveLength(1);
    expect(double.callsOf('chat.delete')).toHaveLength(1);
  });
});
