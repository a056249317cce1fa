import type { Update } from 'grammy/types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Channel, WebhookRoute } from '../../../src/core/index.js';
import { startTelegramDouble, type TelegramDouble } from '../../doubles/telegram-double.js';
import { capturingLogger } from '../shared/capturing-logger.js';
import { recordingSink, startChannel, waitFor } from './channel-fixture.js';

const SECRET = 'webhook-secret-0123456789';
const headers = { 'x-telegram-bot-api-secret-token': SECRET };

/** The update with its message changed by `change` (a deep copy: the factory's objects stay as they are). */
function withMessage(update: Update, change: (message: Record<string, any>) => void): Record<string, any> {
  const copy = structuredClone(update) as Record<string, any>;
  change(copy.message);
  return copy;
}

describe('telegram webhook: bad but authentic data', () => {
  let double: TelegramDouble;
  let channel: Channel;

  beforeEach(async () => {
    double = await startTelegramDouble();
    channel = await startChannel(double, { mode: 'webhook', webhookSecret: SECRET });
  });
  afterEach(() => double.close());

  const route = (sink: ReturnType<typeof recordingSink>['sink']) => channel.webhookRoutes(sink)[0] as WebhookRoute;
  const post = (sink: ReturnType<typeof recordingSink>['sink'], update: unknown) => route(sink).handle({ headers, rawBody: JSON.stringify(update) });

  it('takes a lone surrogate and NUL in the text and names, well formed (U+FFFD)', async () => {
    const { sink, received } = recordingSink();
    const update = withMessage(double.makeUpdate.groupText(-100500, 41, 'x'), (message) => {
      message.text = 'broken \uD800 text\u0000';
      message.from.first_name = 'Ann\uDC00';
      message.chat.title = 'Te\u0000am';
    });
    expect((await post(sink, update)).status).toBe(200);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ text: 'broken \uFFFD text\uFFFD', sender: { name: 'Ann\uFFFD 41' }, chatTitle: 'Te\uFFFDam' });
  });

  it('dates a message of 1e15 (or before 2000, or days ahead) at its receive time', async () => {
    const { sink, received } = recordingSink();
    for (const date of [1e15, 1, Math.floor(Date.now() / 1000) + 3 * 86_400]) {
      const before = Date.now();
      expect((await post(sink, withMessage(double.makeUpdate.privateText(42, `date ${date}`), (message) => (message.date = date)))).status).toBe(200);
      expect(received.at(-1)!.sentAt).toBeGreaterThanOrEqual(before);
      expect(received.at(-1)!.sentAt).toBeLessThanOrEqual(Date.now());
    }
  });

  it('drops a malformed file or album id and still answers the words', async () => {
    const { sink, received } = recordingSink();
    const update = withMessage(double.makeUpdate.privateText(44, 'words survive'), (message) => {
      message.photo = 'not-an-array';
      message.document = { file_id: 7 };
      message.media_group_id = { id: 1 };
    });
    expect((await post(sink, update)).status).toBe(200);
    expect(received.at(-1)).toMatchObject({ text: 'words survive' });
    expect(received.at(-1)!.attachments).toBeUndefined();
    expect(received.at(-1)!.mediaGroupId).toBeUndefined();
  });

  it.each([
    ['text is a number', (message: Record<string, any>) => (message.text = 5)],
    ['caption is an array', (message: Record<string, any>) => ((message.caption = ['x']), delete message.text)],
    ['message_id is a string', (message: Record<string, any>) => (message.message_id = '12')],
    ['chat.id is a string', (message: Record<string, any>) => (message.chat.id = '42')],
    ['chat is null', (message: Record<string, any>) => (message.chat = null)],
    ['chat.type is missing', (message: Record<string, any>) => delete message.chat.type],
    ['from.id is an object', (message: Record<string, any>) => (message.from.id = { id: 42 })],
    ['from.is_bot is a string', (message: Record<string, any>) => (message.from.is_bot = 'false')],
    ['message_thread_id is a string', (message: Record<string, any>) => (message.message_thread_id = 'topic')],
  ])('refuses a message whose %s with 400, not 5xx', async (_name, change) => {
    const { sink, received } = recordingSink();
    const response = await post(sink, withMessage(double.makeUpdate.privateText(43, 'wrongly typed'), change));
    expect(response).toEqual({ status: 400, body: { error: expect.any(String) } });
    expect(received).toHaveLength(0);
  });

  it('refuses a message that is not an object with 400', async () => {
    const { sink, received } = recordingSink();
    for (const message of ['text', 5, [], null]) {
      expect((await post(sink, { update_id: 77, message })).status, JSON.stringify(message)).toBe(400);
    }
    expect(received).toHaveLength(0);
  });

  it('drops optional fields of the wrong type and answers the message', async () => {
    const { sink, received } = recordingSink();
    const update = withMessage(double.makeUpdate.groupText(-100600, 44, 'still fine'), (message) => {
      message.from.first_name = 5;
      message.from.last_name = { x: 1 };
      message.chat.title = ['t'];
      message.entities = 'not a list';
      message.date = 'yesterday';
      message.reply_to_message = 'not a message';
      message.is_topic_message = 'yes';
    });
    const before = Date.now();
    expect((await post(sink, update)).status).toBe(200);
    expect(received).toHaveLength(1);
    const [message] = received;
    expect(message).toMatchObject({ text: 'still fine', sender: { id: '44', username: 'user44' }, conversation: { chatId: '-100600' } });
    expect(message!.sender.name).toBeUndefined();
    expect(message!.chatTitle).toBeUndefined();
    expect(message!.conversation.threadId).toBeUndefined();
    expect(message!.sentAt).toBeGreaterThanOrEqual(before);
  });

  it('takes a text_mention entity without its user (it used to throw, answering 503)', async () => {
    const { sink, received } = recordingSink();
    const update = withMessage(double.makeUpdate.groupText(-100700, 45, 'Bob look'), (message) => {
      message.entities = [{ type: 'text_mention', offset: 0, length: 3 }];
    });
    expect((await post(sink, update)).status).toBe(200);
    expect(received.map((message) => message.text)).toEqual(['Bob look']);
  });
});

describe('telegram long polling: bad but authentic data', () => {
  let double: TelegramDouble;
  let channel: Channel;
  const { logger, lines } = capturingLogger();

  beforeEach(async () => {
    double = await startTelegramDouble();
    channel = await startChannel(double, { mode: 'polling', logger });
  });
  afterEach(async () => {
    await channel.stopInbound();
    await double.close();
  });

  it('drops an update with wrongly typed needed fields with a warning, once, and takes the next message of the chat', async () => {
    const { sink, received } = recordingSink();
    await channel.startInbound(sink);
    const bad = double.pushUpdate(withMessage(double.makeUpdate.privateText(46, 'bad'), (message) => (message.text = { bold: 'bad' })) as Update);
    const poisoned = double.pushUpdate(withMessage(double.makeUpdate.privateText(46, 'x'), (message) => ((message.text = 'lone \uD800'), (message.date = 1e15))) as Update);
    double.pushUpdate(double.makeUpdate.privateText(46, 'next one'));
    await waitFor(() => received.length === 2);
    expect(received.map((message) => message.text)).toEqual(['lone \uFFFD', 'next one']);
    expect(received[0]!.sentAt).toBeLessThanOrEqual(Date.now());
    const warnings = lines.filter((line) => line.level === 40 && line.updateId === bad.update_id);
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]!.reason)).toContain('/message/text');
    expect(lines.some((line) => line.updateId === poisoned.update_id && line.level === 40)).toBe(false);
  });
});
