import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markdownToTelegramHtml } from '../../../channels/telegram/format.js';
import { TYPING_STOP_WAIT_MS } from '../../../channels/telegram/typing.js';
import { BotError, type Channel, type ConversationRef } from '../../../src/core/index.js';
import { parseTelegramHtml, startTelegramDouble, type TelegramDouble } from '../../doubles/telegram-double.js';
import { startChannel } from './channel-fixture.js';

const dm: ConversationRef = { channel: 'telegram', accountId: '123456789', chatId: '777', chatType: 'dm', messageId: '1' };
const topic: ConversationRef = { channel: 'telegram', accountId: '123456789', chatId: '-100500', chatType: 'group', threadId: '42', messageId: '9' };

const visible = (html: string): string => {
  const parsed = parseTelegramHtml(html);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.text;
};

function longAnswer(): string {
  return Array.from({ length: 14 }, (_, index) =>
    [
      `### Part ${index}`,
      `Some **important** text about part ${index}, with a [link](https://example.com/${index}) and \`inline <code>\`. `.repeat(4),
      '```js\n' + Array.from({ length: 10 }, (_, line) => `console.log(${index}, ${line}, a < b && c > d);`).join('\n') + '\n```',
    ].join('\n\n'),
  ).join('\n\n');
}

describe('telegram outbound', () => {
  let double: TelegramDouble;
  let channel: Channel;

  beforeEach(async () => {
    double = await startTelegramDouble();
    channel = await startChannel(double);
  });
  afterEach(() => double.close());

  it('sends a 10,000-character answer as several valid messages, in order, nothing lost', async () => {
    const markdown = longAnswer();
    expect(markdown.length).toBeGreaterThan(10_000);
    const receipt = await channel.send(dm, markdown);

    const sends = double.callsOf('sendMessage');
    expect(sends.length).toBeGreaterThan(2);
    expect(receipt.messageIds).toHaveLength(sends.length);
    expect(new Set(receipt.messageIds).size).toBe(sends.length);
    const texts = sends.map((call) => String(call.params.text));
    for (const [index, call] of sends.entries()) {
      expect(call.failed).toBe(false);
      expect(call.params).toMatchObject({ chat_id: 777, parse_mode: 'HTML', link_preview_options: { is_disabled: true } });
      const text = texts[index] as string;
      expect(text.length).toBeLessThanOrEqual(4096);
      expect(text.split('<pre>').length).toBe(text.split('</pre>').length);
      expect(text).not.toMatch(/<pre>(?!<code class="language-js">)/);
    }
    expect(texts.map(visible).join('')).toBe(visible(markdownToTelegramHtml(markdown)));
  });

  it('sends into the forum topic', async () => {
    await channel.send(topic, 'hello topic');
    expect(double.callsOf('sendMessage')[0]?.params).toMatchObject({ chat_id: -100500, message_thread_id: 42, text: 'hello topic' });
  });

  it('sends nothing for an empty answer', async () => {
    expect(await channel.send(dm, '  \n')).toEqual({ messageIds: [] });
    expect(double.callsOf('sendMessage')).toHaveLength(0);
  });

  it('resends a chunk Telegram cannot parse as plain text, keeping link addresses', async () => {
    double.failNext('sendMessage', { status: 400, description: 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 3' });
    const receipt = await channel.send(dm, '**Hi** see [docs](https://example.com/a?b=1&c=2) & `x < y`');
    const [first, second] = double.callsOf('sendMessage');
    expect(first).toMatchObject({ failed: true, params: { parse_mode: 'HTML' } });
    expect(second?.failed).toBe(false);
    expect(second?.params.parse_mode).toBeUndefined();
    expect(second?.params.text).toBe('Hi see docs (https://example.com/a?b=1&c=2) & x < y');
    expect(receipt.messageIds).toHaveLength(1);
  });

  it('honours retry_after on 429 before resending', async () => {
    double.failNext('sendMessage', { status: 429, description: 'Too Many Requests: retry after 1', retry_after: 1 });
    const receipt = await channel.send(dm, 'rate limited');
    const [first, second] = double.callsOf('sendMessage');
    expect(first?.failed).toBe(true);
    expect(second?.failed).toBe(false);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1000);
    expect(receipt.messageIds).toHaveLength(1);
  });

  it('gives up at once on a retry_after beyond the bound, as a retryable platform error', async () => {
    double.failNext('sendMessage', { status: 429, description: 'Too Many Requests: retry after 120', retry_after: 120 });
    const error = await channel.send(dm, 'x').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BotError);
    expect(error).toMatchObject({ code: 'platform', isRetryable: true, retryAfterMs: 120_000 });
  });

  it('retries a 5xx answer (auto-retry backs off 3 s first)', async () => {
    double.failNext('sendMessage', { status: 502, description: 'Bad Gateway' });
    const receipt = await channel.send(dm, 'server hiccup');
    const [first, second] = double.callsOf('sendMessage');
    expect(first?.failed).toBe(true);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(3000);
    expect(receipt.messageIds).toHaveLength(1);
  });

  it('gives up on network failures after a bounded number of attempts', async () => {
    await double.close();
    const started = Date.now();
    const error = await channel.send(dm, 'nobody listens').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'BotError', code: 'platform', isRetryable: true });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('throws a non-retryable platform error when the user blocked the bot', async () => {
    double.failNext('sendMessage', { status: 403, description: 'Forbidden: bot was blocked by the user' });
    const error = await channel.send(dm, 'x').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'BotError', code: 'platform', isRetryable: false });
    expect(double.callsOf('sendMessage')).toHaveLength(1);
  });

  it('sends notices as plain text, unformatted', async () => {
    await channel.sendNotice(dm, 'Stopped. <b>not bold</b> **not bold**');
    const call = double.callsOf('sendMessage')[0];
    expect(call?.params.parse_mode).toBeUndefined();
    expect(call?.params.text).toBe('Stopped. <b>not bold</b> **not bold**');
  });

  it('splits a long notice too', async () => {
    const receipt = await channel.sendNotice(dm, 'a&b '.repeat(3000));
    expect(receipt.messageIds).toHaveLength(3);
    expect(double.callsOf('sendMessage').map((call) => call.params.text).join('')).toBe('a&b '.repeat(3000));
  });
});

describe('telegram typing indicator', () => {
  it('sends typing at once, renews it, and stops', async () => {
    const double = await startTelegramDouble();
    try {
      const channel = await startChannel(double, { typingIntervalMs: 100 });
      const indicator = channel.startWorking(topic);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(double.callsOf('sendChatAction')).toHaveLength(1);
      expect(double.callsOf('sendChatAction')[0]?.params).toEqual({ chat_id: -100500, action: 'typing', message_thread_id: 42 });
      await new Promise((resolve) => setTimeout(resolve, 250));
      await indicator.stop();
      const count = double.callsOf('sendChatAction').length;
      expect(count).toBeGreaterThanOrEqual(3);
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(double.callsOf('sendChatAction')).toHaveLength(count);
    } finally {
      await double.close();
    }
  });

  it('lets a typing call in flight at stop finish (no AbortError, its connection kept), and cuts off one that hangs', async () => {
    const double = await startTelegramDouble();
    try {
      const channel = await startChannel(double);
      double.stallAfterCommit('sendChatAction', 100);
      const quick = channel.startWorking(dm);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await quick.stop();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(double.callsOf('sendChatAction')).toHaveLength(1);
      expect(double.callsOf('sendChatAction')[0]).toMatchObject({ failed: false });
      expect(double.callsOf('sendChatAction')[0]?.abandoned).toBeUndefined();

      double.stallAfterCommit('sendChatAction', TYPING_STOP_WAIT_MS + 500);
      const hanging = channel.startWorking(dm);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await hanging.stop();
      await new Promise((resolve) => setTimeout(resolve, TYPING_STOP_WAIT_MS + 200));
      expect(double.callsOf('sendChatAction')[1]?.abandoned).toBe(true);
    } finally {
      await double.close();
    }
  });

  it('only logs a failing typing call', async () => {
    const double = await startTelegramDouble();
    try {
      const channel = await startChannel(double);
      double.failNext('sendChatAction', { status: 400, description: 'Bad Request: chat not found' });
      const indicator = channel.startWorking(dm);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await indicator.stop();
      expect(double.callsOf('sendChatAction')[0]?.failed).toBe(true);
    } finally {
      await double.close();
    }
  });
});

describe('createTelegramChannel', () => {
  it('asks getMe once and uses the bot id as account id', async () => {
    const double = await startTelegramDouble({ token: '987654:abc', botUsername: 'SomeBot' });
    try {
      const channel = await startChannel(double);
      expect(channel.accountId).toBe('987654');
      expect(channel.name).toBe('telegram');
      expect(double.callsOf('getMe')).toHaveLength(1);
      expect(channel.promptSection()).toContain('@SomeBot');
      expect(channel.openLiveReply).toBeDefined();
    } finally {
      await double.close();
    }
  });

  it('reports a refused token as a configuration error', async () => {
    const double = await startTelegramDouble();
    try {
      const error = await startChannel(double, { token: '1:wrong' }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ name: 'BotError', code: 'config' });
      expect(String((error as Error).message)).not.toContain('1:wrong');
    } finally {
      await double.close();
    }
  });
});
