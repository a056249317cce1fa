import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markdownToTelegramHtml } from '../../../channels/telegram/format.js';
import { renderAnswerChunks } from '../../../channels/telegram/outbound.js';
import type { Channel, ConversationRef, LiveReply } from '../../../src/core/index.js';
import { parseTelegramHtml, startTelegramDouble, type TelegramCall, type TelegramDouble } from '../../doubles/telegram-double.js';
import { startChannel, waitFor } from './channel-fixture.js';

const INTERVAL_MS = 200;
const dm: ConversationRef = { channel: 'telegram', accountId: '123456789', chatId: '777', chatType: 'dm', messageId: '1' };
const topic: ConversationRef = { channel: 'telegram', accountId: '123456789', chatId: '-100500', chatType: 'group', threadId: '42', messageId: '9' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

/** Feeds growing prefixes of `text` to the live reply, as a streaming model would, over about `durationMs`. */
async function stream(live: LiveReply, text: string, durationMs: number, stepMs = 10): Promise<void> {
  const steps = Math.max(1, Math.round(durationMs / stepMs));
  for (let step = 1; step <= steps; step += 1) {
    live.update(text.slice(0, Math.ceil((text.length * step) / steps)));
    await sleep(stepMs);
  }
}

/** The calls that send or edit message text (previews and the final answer), in order. */
const textCalls = (double: TelegramDouble): TelegramCall[] => double.calls.filter((call) => call.method === 'sendMessage' || call.method === 'editMessageText');

describe('telegram live replies', () => {
  let double: TelegramDouble;
  let channel: Channel;

  beforeEach(async () => {
    double = await startTelegramDouble();
    channel = await startChannel(double, { liveEditIntervalMs: INTERVAL_MS });
  });
  afterEach(() => double.close());

  it('sends a preview, edits it in place at a throttled pace, and settles it into the formatted answer', async () => {
    const text = Array.from({ length: 300 }, (_, index) => `word${index}`).join(' ');
    const final = `${text}\n\n**Done.**`;
    const live = channel.openLiveReply!(dm)!;
    const started = Date.now();
    await stream(live, text, 2000);
    const duration = Date.now() - started;
    const receipt = await live.finish(final);

    const [preview, ...sends] = double.callsOf('sendMessage');
    expect(sends).toHaveLength(0);
    expect(preview?.params).toMatchObject({ chat_id: 777, parse_mode: 'HTML' });
    // the first update is shown at once (not held for the pace): the preview has only the start of the answer
    expect(visible(String(preview!.params.text)).length).toBeLessThan(text.length / 2);
    const edits = double.callsOf('editMessageText');
    const previewEdits = edits.slice(0, -1);
    // progressive, and never more than one edit per interval (wall-clock lower bounds would flake under load)
    expect(previewEdits.length).toBeGreaterThanOrEqual(2);
    expect(previewEdits.length).toBeLessThanOrEqual(Math.ceil(duration / INTERVAL_MS));
    const paced = [preview!, ...previewEdits];
    for (let index = 1; index < paced.length; index += 1) {
      expect(paced[index]!.at - paced[index - 1]!.at).toBeGreaterThanOrEqual(INTERVAL_MS);
    }
    // progressive: every preview shows more of the answer than the one before
    const shown = paced.map((call) => visible(String(call.params.text)));
    for (let index = 1; index < shown.length; index += 1) {
      expect(shown[index]!.length).toBeGreaterThan(shown[index - 1]!.length);
      expect(text.startsWith(shown[index]!)).toBe(true);
    }
    for (const call of edits) expect(call.params).toMatchObject({ chat_id: 777, message_id: Number(receipt.messageIds[0]) });

    const last = edits.at(-1)!;
    expect(last.params).toMatchObject({ text: markdownToTelegramHtml(final), parse_mode: 'HTML' });
    expect(last.failed).toBe(false);
    expect(receipt.messageIds).toEqual([String(double.visibleMessages(777)[0]?.messageId)]);
    expect(double.visibleMessages(777).map((message) => message.text)).toEqual([visible(markdownToTelegramHtml(final))]);

    // nothing keeps running after finish
    const callCount = double.calls.length;
    await sleep(INTERVAL_MS * 3);
    expect(double.calls).toHaveLength(callCount);
  });

  it('settles a long answer: the first chunk edited into the preview, the rest sent after it, each within 4096', async () => {
    const markdown = longAnswer();
    expect(markdown.length).toBeGreaterThan(10_000);
    const chunks = renderAnswerChunks(markdown);
    expect(chunks.length).toBeGreaterThan(2);
    const live = channel.openLiveReply!(dm)!;
    await stream(live, markdown, 1500, 25);
    const receipt = await live.finish(markdown);

    const calls = textCalls(double);
    for (const call of calls) {
      expect(call.failed).toBe(false);
      expect(String(call.params.text).length).toBeLessThanOrEqual(4096);
    }
    const finalEdit = double.callsOf('editMessageText').at(-1)!;
    expect(finalEdit.params.text).toBe(chunks[0]);
    const afterFinal = calls.slice(calls.indexOf(finalEdit) + 1);
    expect(afterFinal.map((call) => call.method)).toEqual(chunks.slice(1).map(() => 'sendMessage'));
    expect(afterFinal.map((call) => call.params.text)).toEqual(chunks.slice(1));
    // previews past one message show its beginning and a cut mark
    const previews = calls.slice(0, calls.indexOf(finalEdit));
    expect(previews.some((call) => String(call.params.text).endsWith('\n…'))).toBe(true);

    const messages = double.visibleMessages(777);
    expect(receipt.messageIds).toEqual(messages.map((message) => String(message.messageId)));
    expect(messages.map((message) => message.text).join('')).toBe(visible(markdownToTelegramHtml(markdown)));
  });

  it('never previews more than 4096 characters, even when escaping inflates the HTML', async () => {
    const live = channel.openLiveReply!(dm)!;
    live.update('a < b && c > d; '.repeat(2000));
    await waitFor(() => double.callsOf('sendMessage').length === 1);
    const [preview] = double.callsOf('sendMessage');
    expect(preview?.failed).toBe(false);
    expect(String(preview?.params.text).length).toBeLessThanOrEqual(4096);
    expect(visible(String(preview?.params.text))).toMatch(/^a < b && c > d; .*\n…$/s);
    await live.discard();
  });

  it('falls back to plain-text previews when Telegram refuses the HTML', async () => {
    double.failNext('sendMessage', { status: 400, description: 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 0' });
    const live = channel.openLiveReply!(dm)!;
    live.update('**Hello** there');
    await waitFor(() => double.callsOf('sendMessage').length === 2);
    const [refused, plain] = double.callsOf('sendMessage');
    expect(refused).toMatchObject({ failed: true, params: { parse_mode: 'HTML', text: '<b>Hello</b> there' } });
    expect(plain?.failed).toBe(false);
    expect(plain?.params.parse_mode).toBeUndefined();
    expect(plain?.params.text).toBe('Hello there');
    expect(plain!.at - refused!.at).toBeGreaterThanOrEqual(INTERVAL_MS);
    const receipt = await live.finish('**Hello** there, friend');
    expect(double.callsOf('editMessageText').at(-1)?.params).toMatchObject({ text: '<b>Hello</b> there, friend', parse_mode: 'HTML' });
    expect(receipt.messageIds).toHaveLength(1);
  });

  it('discard deletes the preview and stops pending edits', async () => {
    const live = channel.openLiveReply!(dm)!;
    live.update('Thinking about it');
    await waitFor(() => double.callsOf('sendMessage').length === 1);
    live.update('Thinking about it some more'); // waits for the interval
    const previewId = double.visibleMessages(777)[0]?.messageId;
    await live.discard();
    expect(double.callsOf('deleteMessage').map((call) => call.params)).toEqual([{ chat_id: 777, message_id: previewId }]);
    expect(double.callsOf('deleteMessage')[0]?.failed).toBe(false);
    live.update('Thinking about it some more, and more');
    await sleep(INTERVAL_MS * 3);
    expect(double.callsOf('editMessageText')).toHaveLength(0);
    expect(double.callsOf('sendMessage')).toHaveLength(1);
    expect(double.visibleMessages(777)).toHaveLength(0);
  });

  it('shows a status line under the text while tools run, and the final answer without it', async () => {
    const live = channel.openLiveReply!(dm)!;
    live.status!('Running `ls -la`…');
    await waitFor(() => double.callsOf('sendMessage').length === 1);
    expect(double.callsOf('sendMessage')[0]?.params).toMatchObject({ text: '<i>Running <code>ls -la</code>…</i>', parse_mode: 'HTML' });
    live.update('Let me look');
    await waitFor(() => double.callsOf('editMessageText').length === 1);
    expect(visible(String(double.callsOf('editMessageText')[0]?.params.text))).toBe('Let me look\n\nRunning ls -la…');
    // a label with Markdown punctuation shows as written
    live.status!('Reading *notes*_[1]…');
    await waitFor(() => double.callsOf('editMessageText').length === 2);
    expect(visible(String(double.callsOf('editMessageText')[1]?.params.text))).toBe('Let me look\n\nReading *notes*_[1]…');
    await live.finish('The **answer**.');
    expect(double.callsOf('sendMessage')).toHaveLength(1);
    expect(double.callsOf('editMessageText').at(-1)?.params.text).toBe('The <b>answer</b>.');
    expect(double.visibleMessages(777).map((message) => message.text)).toEqual(['The answer.']);
  });

  it('finish without any update just sends the answer', async () => {
    const live = channel.openLiveReply!(dm)!;
    const receipt = await live.finish('Short **answer**');
    expect(double.calls.filter((call) => call.method !== 'getMe').map((call) => call.method)).toEqual(['sendMessage']);
    expect(double.callsOf('sendMessage')[0]?.params).toMatchObject({ text: 'Short <b>answer</b>', parse_mode: 'HTML' });
    expect(receipt.messageIds).toHaveLength(1);
  });

  it('falls back to sending the answer and deleting the stale preview when the final edit fails', async () => {
    const live = channel.openLiveReply!(dm)!;
    live.update('A draft of the answer');
    await waitFor(() => double.callsOf('sendMessage').length === 1);
    const previewId = double.visibleMessages(777)[0]!.messageId;
    double.failNext('editMessageText', { status: 400, description: 'Bad Request: message to edit not found' });
    const receipt = await live.finish('The **final** answer');

    const methods = double.calls.filter((call) => call.method !== 'getMe').map((call) => `${call.method}${call.failed ? ' (failed)' : ''}`);
    expect(methods).toEqual(['sendMessage', 'editMessageText (failed)', 'sendMessage', 'deleteMessage']);
    expect(double.callsOf('sendMessage')[1]?.params).toMatchObject({ chat_id: 777, text: 'The <b>final</b> answer', parse_mode: 'HTML' });
    expect(double.callsOf('deleteMessage')[0]?.params).toEqual({ chat_id: 777, message_id: previewId });
    const messages = double.visibleMessages(777);
    expect(messages.map((message) => message.text)).toEqual(['The final answer']);
    expect(receipt.messageIds).toEqual([String(messages[0]?.messageId)]);
  });

  it('edits the final answer as plain text when Telegram refuses its HTML', async () => {
    const live = channel.openLiveReply!(dm)!;
    live.update('See the docs');
    await waitFor(() => double.callsOf('sendMessage').length === 1);
    double.failNext('editMessageText', { status: 400, description: 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 3' });
    const receipt = await live.finish('See the [docs](https://example.com/a?b=1&c=2)');
    const [refused, plain] = double.callsOf('editMessageText');
    expect(refused).toMatchObject({ failed: true, params: { parse_mode: 'HTML' } });
    expect(plain?.failed).toBe(false);
    expect(plain?.params.parse_mode).toBeUndefined();
    expect(plain?.params.text).toBe('See the docs (https://example.com/a?b=1&c=2)');
    expect(double.callsOf('deleteMessage')).toHaveLength(0);
    expect(receipt.messageIds).toEqual([String(double.visibleMessages(777)[0]?.messageId)]);
  });

  it('skips a preview edit refused with 429 and holds the chat back for retry_after', async () => {
    const live = channel.openLiveReply!(dm)!;
    live.update('First words');
    await waitFor(() => double.callsOf('sendMessage').length === 1);
    double.failNext('editMessageText', { status: 429, description: 'Too Many Requests: retry after 1', retry_after: 1 });
    live.update('First words, then more');
    await waitFor(() => double.callsOf('editMessageText').length === 1);
    live.update('First words, then more and more');
    await waitFor(() => double.callsOf('editMessageText').length === 2, 3000);
    const [limited, next] = double.callsOf('editMessageText');
    expect(limited?.failed).toBe(true);
    // not retried by auto-retry with the old text: the next edit carries the latest text, a second later
    expect(next?.params.text).toBe('First words, then more and more');
    expect(next!.at - limited!.at).toBeGreaterThanOrEqual(1000);
    await live.finish('First words, then more and more. The end.');
    expect(double.callsOf('editMessageText').at(-1)?.params.text).toBe('First words, then more and more. The end.');
  });

  it('never loses the final answer to a 429: the final edit waits out retry_after', async () => {
    const live = channel.openLiveReply!(dm)!;
    live.update('Almost there');
    await waitFor(() => double.callsOf('sendMessage').length === 1);
    double.failNext('editMessageText', { status: 429, description: 'Too Many Requests: retry after 1', retry_after: 1 });
    const receipt = await live.finish('Arrived.');
    const [limited, final] = double.callsOf('editMessageText');
    expect(limited?.failed).toBe(true);
    expect(final).toMatchObject({ failed: false, params: { text: 'Arrived.' } });
    expect(final!.at - limited!.at).toBeGreaterThanOrEqual(1000);
    expect(double.visibleMessages(777).map((message) => message.text)).toEqual(['Arrived.']);
    expect(receipt.messageIds).toHaveLength(1);
  });

  it('sends the preview into the forum topic', async () => {
    const live = channel.openLiveReply!(topic)!;
    live.update('In the topic');
    await waitFor(() => double.callsOf('sendMessage').length === 1);
    expect(double.callsOf('sendMessage')[0]?.params).toMatchObject({ chat_id: -100500, message_thread_id: 42, text: 'In the topic' });
    const receipt = await live.finish('In the topic, done');
    expect(double.callsOf('editMessageText')[0]?.params).toMatchObject({ chat_id: -100500, text: 'In the topic, done' });
    expect(double.visibleMessages(-100500)).toMatchObject([{ threadId: 42, text: 'In the topic, done' }]);
    expect(receipt.messageIds).toEqual([String(double.visibleMessages(-100500)[0]?.messageId)]);
  });

  it('paces the live edits of one chat together, not per reply', async () => {
    const first = channel.openLiveReply!(topic)!;
    const second = channel.openLiveReply!({ ...topic, threadId: '43', messageId: '10' })!;
    const started = Date.now();
    await Promise.all([stream(first, 'first answer '.repeat(40), 1200), stream(second, 'second answer '.repeat(40), 1200)]);
    const duration = Date.now() - started;
    await Promise.all([first.discard(), second.discard()]);
    const previews = textCalls(double);
    expect(previews.length).toBeGreaterThanOrEqual(4);
    expect(previews.length).toBeLessThanOrEqual(Math.ceil(duration / INTERVAL_MS) + 1);
    for (let index = 1; index < previews.length; index += 1) {
      expect(previews[index]!.at - previews[index - 1]!.at).toBeGreaterThanOrEqual(INTERVAL_MS);
    }
    // both replies got their turn
    expect(new Set(double.callsOf('sendMessage').map((call) => call.params.message_thread_id))).toEqual(new Set([42, 43]));
    expect(double.visibleMessages(-100500)).toHaveLength(0);
  });
});
