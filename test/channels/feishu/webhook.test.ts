import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FEISHU_CARDS_PATH, FEISHU_EVENTS_PATH } from '../../../channels/feishu/index.js';
import type { Channel, InboundSink, WebhookResponse } from '../../../src/core/index.js';
import { startFeishuDouble, type FeishuDouble } from '../../doubles/feishu-double.js';
import { dedupingSink, recordingSink, routeAt, startChannel } from './channel-fixture.js';

describe('feishu event subscription over HTTP', () => {
  let double: FeishuDouble;
  let channel: Channel;

  beforeEach(async () => {
    double = await startFeishuDouble();
    channel = await startChannel(double);
  });
  afterEach(() => double.close());

  const post = (sink: InboundSink, body: unknown, headers: Record<string, string> = {}, path = FEISHU_EVENTS_PATH): Promise<WebhookResponse> =>
    routeAt(channel, sink, path).handle({ headers, rawBody: typeof body === 'string' ? body : JSON.stringify(body) });

  it('mounts POST /webhooks/feishu/events and /webhooks/feishu/cards', () => {
    expect(channel.webhookRoutes(recordingSink().sink).map((route) => `${route.method} ${route.path}`)).toEqual([
      'POST /webhooks/feishu/events',
      'POST /webhooks/feishu/cards',
    ]);
  });

  it('hands a plain event to the sink once, normalized, and answers 200', async () => {
    const { sink, received } = recordingSink();
    const envelope = double.events.groupMention('summarize this', { chatId: 'oc_team', messageId: 'om_42' });
    const response = await post(sink, envelope);
    expect(response).toEqual({ status: 200, body: {} });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      conversation: { channel: 'feishu', accountId: double.appId, chatId: 'oc_team', chatType: 'group', messageId: 'om_42' },
      dedupeKey: `feishu:${double.appId}:oc_team:om_42`,
      text: 'summarize this',
      addressed: true,
    });
  });

  it('decrypts an encrypted, signed event', async () => {
    const { sink, received } = recordingSink();
    const rawBody = JSON.stringify(double.encrypt(double.events.p2pText('secret hello')));
    const response = await post(sink, rawBody, double.signedHeaders(rawBody));
    expect(response.status).toBe(200);
    expect(received.map((message) => message.text)).toEqual(['secret hello']);
  });

  it('answers url_verification, plain and encrypted, without calling the sink', async () => {
    const { sink, received } = recordingSink();
    expect(await post(sink, double.events.urlVerification('challenge-1'))).toEqual({ status: 200, body: { challenge: 'challenge-1' } });
    expect(await post(sink, double.encrypt(double.events.urlVerification('challenge-2')))).toEqual({ status: 200, body: { challenge: 'challenge-2' } });
    expect(await post(sink, double.events.urlVerification('c'), {}, FEISHU_CARDS_PATH)).toEqual({ status: 200, body: { challenge: 'c' } });
    expect(received).toHaveLength(0);
  });

  it('refuses a wrong verification token, a bad signature or an undecryptable body with 401; nothing reaches the sink', async () => {
    const { sink, received } = recordingSink();
    const wrongToken = double.events.p2pText('hi');
    wrongToken.header.token = 'not-the-token';
    expect((await post(sink, wrongToken)).status).toBe(401);
    expect((await post(sink, { ...double.events.urlVerification('x'), token: 'nope' })).status).toBe(401);
    expect((await post(sink, double.encrypt({ ...double.events.p2pText('hi'), header: { ...wrongToken.header } }))).status).toBe(401);

    const rawBody = JSON.stringify(double.events.p2pText('hi'));
    expect((await post(sink, rawBody, double.signedHeaders(rawBody, 'another-key'))).status).toBe(401);
    expect((await post(sink, rawBody, { ...double.signedHeaders(rawBody), 'x-lark-request-nonce': 'changed' })).status).toBe(401);
    expect((await post(sink, double.encrypt(double.events.p2pText('hi'), 'another-key'))).status).toBe(401);
    expect(received).toHaveLength(0);
  });

  it('answers 400 to malformed JSON and to JSON that is not an object', async () => {
    const { sink, received } = recordingSink();
    for (const rawBody of ['{not json', '[]', '"text"', 'null', '']) {
      expect((await post(sink, rawBody)).status, rawBody).toBe(400);
    }
    expect((await post(sink, { encrypt: Buffer.from('garbage').toString('base64') })).status).toBe(401);
    expect(received).toHaveLength(0);
  });

  it('gives a redelivered event (same event_id) and the same message twice no second turn', async () => {
    const { sink, received } = dedupingSink();
    const envelope = double.events.p2pText('once', { messageId: 'om_7' });
    expect((await post(sink, envelope)).status).toBe(200);
    expect((await post(sink, envelope)).status).toBe(200);
    // Feishu can also send the same message under a new event_id: the sink dedupes on the key
    const again = double.events.p2pText('once', { messageId: 'om_7' });
    expect((await post(sink, again)).status).toBe(200);
    expect(received.map((message) => message.dedupeKey)).toEqual([`feishu:${double.appId}:oc_p2p_chat:om_7`, `feishu:${double.appId}:oc_p2p_chat:om_7`]);
  });

  it('answers 503 when the queue refuses the message, and takes the redelivery', async () => {
    let refuse = true;
    const { sink, received } = recordingSink(() => (refuse ? { kind: 'rejected', reason: 'redis down' } : { kind: 'queued', sessionKey: 's' }));
    const envelope = double.events.p2pText('retry me');
    expect((await post(sink, envelope)).status).toBe(503);
    refuse = false;
    expect((await post(sink, envelope)).status).toBe(200);
    expect(received).toHaveLength(2);
    const throwing: InboundSink = async () => {
      throw new Error('boom');
    };
    expect((await post(throwing, double.events.p2pText('x'))).status).toBe(503);
  });

  it('acknowledges other events and ignored messages without a turn', async () => {
    const { sink, received } = recordingSink();
    const other = { ...double.events.p2pText('x'), header: { ...double.events.p2pText('x').header, event_type: 'im.chat.member.bot.added_v1' } };
    expect(await post(sink, other)).toEqual({ status: 200, body: {} });
    expect((await post(sink, double.events.p2pText('from a bot', { senderType: 'app' }))).status).toBe(200);
    expect((await post(sink, double.events.message('p2p', 'image', { image_key: 'img' }))).status).toBe(200);
    expect(received).toHaveLength(0);
  });

  it('acknowledges a verified card callback with {} and refuses a forged one', async () => {
    const callback = { schema: '2.0', header: { event_id: 'e1', event_type: 'card.action.trigger', token: double.verificationToken }, event: { action: { value: {} } } };
    const rawBody = JSON.stringify(double.encrypt(callback));
    expect(await post(recordingSink().sink, rawBody, double.signedHeaders(rawBody), FEISHU_CARDS_PATH)).toEqual({ status: 200, body: {} });
    const forged = { ...callback, header: { ...callback.header, token: 'forged' } };
    expect((await post(recordingSink().sink, forged, {}, FEISHU_CARDS_PATH)).status).toBe(401);
  });

  it('checks the sha1 signature of an old-style card callback', async () => {
    const rawBody = JSON.stringify({ open_id: 'ou_user_1', open_message_id: 'om_card', token: double.verificationToken, action: { tag: 'button', value: {} } });
    const sign = (token: string) => ({
      'x-lark-request-timestamp': '1700000000',
      'x-lark-request-nonce': 'nonce',
      'x-lark-signature': createHash('sha1').update(`1700000000nonce${token}${rawBody}`).digest('hex'),
    });
    expect((await post(recordingSink().sink, rawBody, sign(double.verificationToken), FEISHU_CARDS_PATH)).status).toBe(200);
    expect((await post(recordingSink().sink, rawBody, sign('other-token'), FEISHU_CARDS_PATH)).status).toBe(401);
  });
});

describe('feishu webhook configuration', () => {
  it('accepts encrypted deliveries with only an encrypt key, and refuses everything with neither secret', async () => {
    const double = await startFeishuDouble();
    try {
      const onlyKey = await startChannel(double, { verificationToken: undefined });
      const { sink, received } = recordingSink();
      const encrypted = await routeAt(onlyKey, sink, FEISHU_EVENTS_PATH).handle({ headers: {}, rawBody: JSON.stringify(double.encrypt(double.events.p2pText('ok'))) });
      expect(encrypted.status).toBe(200);
      const plain = await routeAt(onlyKey, sink, FEISHU_EVENTS_PATH).handle({ headers: {}, rawBody: JSON.stringify(double.events.p2pText('forged')) });
      expect(plain.status).toBe(401);

      const open = await startChannel(double, { verificationToken: undefined, encryptKey: undefined });
      const response = await routeAt(open, sink, FEISHU_EVENTS_PATH).handle({ headers: {}, rawBody: JSON.stringify(double.events.p2pText('anyone?')) });
      expect(response.status).toBe(401);
      expect(received.map((message) => message.text)).toEqual(['ok']);
    } finally {
      await double.close();
    }
  });

  it('mounts no route in websocket mode', async () => {
    const double = await startFeishuDouble();
    try {
      const channel = await startChannel(double, { mode: 'websocket' });
      expect(channel.webhookRoutes(recordingSink().sink)).toEqual([]);
    } finally {
      await double.close();
    }
  });
});
