import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from '../../../channels/slack/format.js';
import { BotError, type Channel, type ConversationRef } from '../../../src/core/index.js';
import { startSlackDouble, type SlackDouble } from '../../doubles/slack-double.js';
import { memoryState, startSlackChannel } from './channel-fixture.js';

const TEAM = 'T0TEAM01';
const dm: ConversationRef = { channel: 'slack', accountId: TEAM, chatId: 'D0ALICE01', chatType: 'dm', messageId: '1700000100.000100' };
const thread: ConversationRef = { channel: 'slack', accountId: TEAM, chatId: 'C0GENERAL', chatType: 'group', threadId: '1700000100.000200', messageId: '1700000100.000200' };

function longAnswer(): string {
  return Array.from({ length: 14 }, (_, index) =>
    [
      `### Part ${index}`,
      `Some **important** text about part ${index}, with a [link](https://example.com/${index}) and \`inline <code>\`. `.repeat(4),
      '```js\n' + Array.from({ length: 10 }, (_, line) => `console.log(${index}, ${line}, a < b && c > d);`).join('\n') + '\n```',
    ].join('\n\n'),
  ).join('\n\n');
}

describe('slack outbound', () => {
  let double: SlackDouble;
  let channel: Channel;
  let state: ReturnType<typeof memoryState>;

  beforeEach(async () => {
    double = await startSlackDouble();
    state = memoryState();
    channel = await startSlackChannel(double, { state });
  });
  afterEach(() => double.close());

  it('posts formatted mrkdwn into the thread and remembers the thread', async () => {
    const receipt = await channel.send(thread, '**Hello** <@U0ALICE01>, see [docs](https://example.com/?a=1&b=2)');
    const [call] = double.callsOf('chat.postMessage');
    expect(call?.params).toMatchObject({
      channel: 'C0GENERAL',
      thread_ts: thread.threadId,
      text: '*Hello* <@U0ALICE01>, see <https://example.com/?a=1&amp;b=2|docs>',
      mrkdwn: 'true',
      unfurl_links: 'false',
    });
    expect(receipt.messageIds).toEqual([double.messages.get(`C0GENERAL:${receipt.messageIds[0]}`)?.ts]);
    expect(await state.has(`slack-thread:${TEAM}:C0GENERAL:${thread.threadId}`)).toBe(true);
  });

  it('posts a DM without a thread and remembers nothing', async () => {
    await channel.send(dm, 'hi');
    expect(double.callsOf('chat.postMessage')[0]?.params.thread_ts).toBeUndefined();
    expect(state.entries.size).toBe(0);
  });

  it('sends a 10,000-character answer as several messages of at most 4,000, in order, nothing lost', async () => {
    const markdown = longAnswer();
    expect(markdown.length).toBeGreaterThan(10_000);
    const receipt = await channel.send(thread, markdown);
    const posts = double.callsOf('chat.postMessage');
    expect(posts.length).toBeGreaterThanOrEqual(3);
    expect(receipt.messageIds).toHaveLength(posts.length);
    for (const call of posts) {
      expect(call.failed).toBe(false);
      expect(String(call.params.text).length).toBeLessThanOrEqual(4000);
      expect(call.params.thread_ts).toBe(thread.threadId);
    }
    const squash = (text: string): string => text.replace(/\s+/g, '');
    expect(squash(posts.map((call) => call.params.text).join(''))).toBe(squash(markdownToMrkdwn(markdown)));
  });

  it('sends nothing for an empty answer', async () => {
    expect(await channel.send(dm, ' \n ')).toEqual({ messageIds: [] });
    expect(double.callsOf('chat.postMessage')).toHaveLength(0);
  });

  it('honours Retry-After on a 429 and posts once', async () => {
    double.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    const receipt = await channel.send(dm, 'rate limited');
    const [first, second, third] = double.callsOf('chat.postMessage');
    expect(first).toMatchObject({ status: 429, failed: true });
    expect(second?.failed).toBe(false);
    expect(third).toBeUndefined();
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1000);
    expect(receipt.messageIds).toHaveLength(1);
    expect([...double.messages.values()].filter((message) => message.text === 'rate limited')).toHaveLength(1);
  });

  it('gives up at once on a Retry-After beyond the bound, as a retryable platform error', async () => {
    double.failNext('chat.postMessage', { status: 429, retryAfter: 120 });
    const error = await channel.send(dm, 'x').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BotError);
    expect(error).toMatchObject({ code: 'platform', isRetryable: true, retryAfterMs: 120_000 });
    expect(double.callsOf('chat.postMessage')).toHaveLength(1);
  });

  it('never retries chat.postMessage after a 500 (it may have posted), and says so', async () => {
    double.failNext('chat.postMessage', { status: 500 });
    const error = await channel.send(dm, 'maybe posted').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BotError);
    expect(error).toMatchObject({ code: 'platform', isRetryable: false });
    expect((error as Error).message).toContain('chat.postMessage');
    expect(double.callsOf('chat.postMessage')).toHaveLength(1);
  });

  it('never retries chat.postMessage after Slack’s own error answer', async () => {
    double.failNext('chat.postMessage', { error: 'not_in_channel' });
    const error = await channel.send(thread, 'x').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'BotError', code: 'platform', isRetryable: false });
    expect((error as Error).message).toContain('not_in_channel');
    expect(double.callsOf('chat.postMessage')).toHaveLength(1);
  });

  it('calls a refused connection retryable: nothing can have been posted', async () => {
    await double.close();
    const error = await channel.send(dm, 'nobody listens').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'BotError', code: 'platform', isRetryable: true });
  });

  it('sends notices as plain text with &, < and > escaped', async () => {
    await channel.sendNotice(thread, 'Stopped. <b>not bold</b> **not bold** & done');
    const call = double.callsOf('chat.postMessage')[0];
    expect(call?.params).toMatchObject({ text: 'Stopped. &lt;b&gt;not bold&lt;/b&gt; **not bold** &amp; done', mrkdwn: 'false', thread_ts: thread.threadId });
  });

  it('splits a long notice too', async () => {
    const receipt = await channel.sendNotice(dm, 'a&b '.repeat(2000));
    expect(receipt.messageIds.length).toBeGreaterThanOrEqual(3);
    const texts = double.callsOf('chat.postMessage').map((call) => String(call.params.text));
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(4000);
    expect(texts.join('').replace(/&amp;/g, '&')).toBe('a&b '.repeat(2000).trim());
  });
});
