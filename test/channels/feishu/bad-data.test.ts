import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FEISHU_EVENTS_PATH } from '../../../channels/feishu/index.js';
import type { Channel, InboundSink, WebhookResponse } from '../../../src/core/index.js';
import { startFeishuDouble, type FeishuDouble } from '../../doubles/feishu-double.js';
import { capturingLogger } from '../shared/capturing-logger.js';
import { recordingSink, routeAt, startChannel } from './channel-fixture.js';
import { startLongConnectionDouble } from './long-connection-double.js';

type Envelope = Record<string, any>;

/** A p2p text envelope with its `event` changed by `change` (a deep copy). */
function p2pWith(double: FeishuDouble, change: (event: Record<string, any>) => void, text = 'hello'): Envelope {
  const envelope = structuredClone(double.events.p2pText(text, { chatId: 'oc_bad_data' })) as Envelope;
  change(envelope.event);
  return envelope;
}

describe('feishu events webhook: bad but authentic (signed) data', () => {
  let double: FeishuDouble;
  let channel: Channel;

  beforeEach(async () => {
    double = await startFeishuDouble();
    channel = await startChannel(double);
  });
  afterEach(() => double.close());

  const deliver = (sink: InboundSink, envelope: unknown): Promise<WebhookResponse> => routeAt(channel, sink, FEISHU_EVENTS_PATH).handle(double.delivery(envelope));

  it('dates a create_time of 1e30 (string or number) at its receive time', async () => {
    const { sink, received } = recordingSink();
    const before = Date.now();
    expect((await deliver(sink, p2pWith(double, (event) => (event.message.create_time = '1e30')))).status).toBe(200);
    expect((await deliver(sink, p2pWith(double, (event) => (event.message.create_time = 1e30)))).status).toBe(200);
    expect((await deliver(sink, p2pWith(double, (event) => (event.message.create_time = '-5')))).status).toBe(200);
    expect(received).toHaveLength(3);
    for (const message of received) {
      expect(message.sentAt).toBeGreaterThanOrEqual(before);
      expect(message.sentAt).toBeLessThanOrEqual(Date.now());
    }
  });

  it('takes lone surrogates and NUL (in the content and the ids) well formed', async () => {
    const { sink, received } = recordingSink();
    const envelope = p2pWith(double, (event) => {
      event.message.content = JSON.stringify({ text: 'lone \uD800 and nul \u0000' });
      event.message.chat_id = 'oc_bad\uDC00';
      event.sender.sender_id.open_id = 'ou_bad\u0000';
    });
    expect((await deliver(sink, envelope)).status).toBe(200);
    expect(received[0]).toMatchObject({ text: 'lone \uFFFD and nul \uFFFD', conversation: { chatId: 'oc_bad\uFFFD' }, sender: { id: 'ou_bad\uFFFD' } });
    expect(received[0]!.dedupeKey).not.toMatch(/[\uD800-\uDFFF\u0000]/);
  });

  it.each([
    ['message_id is a number', (event: Record<string, any>) => (event.message.message_id = 42)],
    ['chat_id is an object', (event: Record<string, any>) => (event.message.chat_id = { id: 'oc_x' })],
    ['chat_type is a number', (event: Record<string, any>) => (event.message.chat_type = 1)],
    ['message_type is null', (event: Record<string, any>) => (event.message.message_type = null)],
    ['content is an object', (event: Record<string, any>) => (event.message.content = { text: 'hi' })],
    ['message is a string', (event: Record<string, any>) => (event.message = 'hello')],
    ['sender_type is a number', (event: Record<string, any>) => (event.sender.sender_type = 1)],
    ['sender_id.open_id is a number', (event: Record<string, any>) => (event.sender.sender_id.open_id = 7)],
    ['sender is an array', (event: Record<string, any>) => (event.sender = ['ou_x'])],
  ])('refuses a message event whose %s with 400, not 5xx', async (_name, change) => {
    const { sink, received } = recordingSink();
    const response = await deliver(sink, p2pWith(double, change));
    expect(response).toEqual({ status: 400, body: { error: expect.any(String) } });
    expect(received).toHaveLength(0);
  });

  it('drops optional fields of the wrong type and answers the message', async () => {
    const { sink, received } = recordingSink();
    const mention = structuredClone(double.events.groupMention('ping @_user_2', { mentions: [{ key: '@_user_2', openId: 'ou_bob', name: 'Bob' }] })) as Envelope;
    mention.event.message.parent_id = 12;
    mention.event.message.mentions[1].name = { first: 'Bob' };
    expect((await deliver(sink, mention)).status).toBe(200);
    const noMentions = p2pWith(double, (event) => (event.message.mentions = 'none'), 'plain words');
    expect((await deliver(sink, noMentions)).status).toBe(200);
    expect(received.map((message) => [message.text, message.addressed])).toEqual([
      ['ping @someone', true],
      ['plain words', true],
    ]);
  });
});

describe('feishu long connection: bad but authentic data', () => {
  let double: FeishuDouble;
  let longConnection: Awaited<ReturnType<typeof startLongConnectionDouble>>;
  let channel: Channel | undefined;
  const { logger, warnings } = capturingLogger();

  beforeEach(async () => {
    double = await startFeishuDouble();
    longConnection = await startLongConnectionDouble();
    double.setLongConnectionUrl(longConnection.url);
  });
  afterEach(async () => {
    await channel?.stopInbound();
    await longConnection.close();
    await double.close();
  });

  it('acknowledges and drops a wrongly typed event with a warning (no redelivery), and takes the next one', async () => {
    channel = await startChannel(double, { mode: 'websocket', logger });
    const { sink, received } = recordingSink();
    await channel.startInbound(sink);
    await longConnection.waitForConnection();
    expect(await longConnection.pushEvent(p2pWith(double, (event) => (event.message.chat_id = 5)))).toEqual({ code: 200 });
    expect(await longConnection.pushEvent(p2pWith(double, (event) => (event.message.create_time = '1e30'), 'the next one'))).toEqual({ code: 200 });
    expect(received.map((message) => message.text)).toEqual(['the next one']);
    expect(received[0]!.sentAt).toBeLessThanOrEqual(Date.now());
    expect(warnings().some((line) => String(line.reason).includes('/message/chat_id'))).toBe(true);
  });
});
