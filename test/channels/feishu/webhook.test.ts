import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FEISHU_CARDS_PATH, FEISHU_EVENTS_PATH } from '../../../channels/feishu/index.js';
import type { Channel, InboundSink, WebhookResponse } from '../../../src/core/index.js';
import { startFeishuDouble, type FeishuDouble } from '../../doubles/feishu-double.js';
import { dedupingSink, recordingSink, routeAt, startChannel } from './channel-fixture.js';

/** The channel has both a verification token and an encrypt key (the fixture's default), so deliveries must be signed. */
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
  /** As Feishu posts it: signed with the encrypt key (and encrypted with `encrypt`). */
  const deliver = (sink: InboundSink, body: unknown, options: { encrypt?: boolean; path?: string } = {}): Promise<WebhookResponse> => {
    const { rawBody, headers } = double.delivery(body, options);
    return routeAt(channel, sink, options.path ?? FEISHU_EVENTS_PATH).handle({ headers, rawBody });
  };

  it('mounts POST /webhooks/feishu/events and /webhooks/feishu/cards', () => {
    expect(channel.webhookRoutes(recordingSink().sink).map((route) => `${route.method} ${route.path}`)).toEqual([
      'POST /webhooks/feishu/events',
      'POST /webhooks/feishu/cards',
    ]);
  });

  it('hands a plain event to the sink once, normalized, and answers 200', async () => {
    const { sink, received } = recordingSink();
    const envelope = double.events.groupMention('summarize this', { chatId: 'oc_team', messageId: 'om_42' });
    const response = await deliver(sink, envelope);
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
    expect((await deliver(sink, wrongToken)).status).toBe(401);
    expect((await post(sink, { ...double.events.urlVerification('x'), token: 'nope' })).status).toBe(401);
    expect((await deliver(sink, { ...double.events.p2pText('hi'), header: { ...wrongToken.header } }, { encrypt: true })).status).toBe(401);

    const rawBody = JSON.stringify(double.events.p2pText('hi'));
    expect((await post(sink, rawBody, double.signedHeaders(rawBody, 'another-key'))).status).toBe(401);
    expect((await post(sink, rawBody, { ...double.signedHeaders(rawBody), 'x-lark-request-nonce': 'changed' })).status).toBe(401);
    const undecryptable = JSON.stringify(double.encrypt(double.events.p2pText('hi'), 'another-key'));
    expect((await post(sink, undecryptable, double.signedHeaders(undecryptable))).status).toBe(401);
    expect(received).toHaveLength(0);
  });

  it('refuses an unsigned event with 401 although its verification token is right, plain or encrypted', async () => {
    const { sink, received } = recordingSink();
    // the probe's forgery: a plain event naming any sender, with the (leakable) verification token
    const forged = double.events.p2pText('transfer everything', { userOpenId: 'ou_allowlisted_admin' });
    expect(await post(sink, forged)).toEqual({ status: 401, body: { error: expect.stringContaining('signature') } });
    expect((await post(sink, double.encrypt(double.events.p2pText('encrypted but unsigned')))).status).toBe(401);
    // a timestamp and nonce without the signature itself prove nothing either
    const rawBody = JSON.stringify(double.events.p2pText('half signed'));
    const { 'x-lark-signature': _signature, ...withoutSignature } = double.signedHeaders(rawBody);
    expect((await post(sink, rawBody, withoutSignature)).status).toBe(401);
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
    expect((await deliver(sink, envelope)).status).toBe(200);
    expect((await deliver(sink, envelope)).status).toBe(200);
    // Feishu can also send the same message under a new event_id: the sink dedupes on the key
    const again = double.events.p2pText('once', { messageId: 'om_7' });
    expect((await deliver(sink, again)).status).toBe(200);
    expect(received.map((message) => message.dedupeKey)).toEqual([`feishu:${double.appId}:oc_p2p_chat:om_7`, `feishu:${double.appId}:oc_p2p_chat:om_7`]);
  });

  it('answers 503 when the queue refuses the message, and takes the redelivery', async () => {
    let refuse = true;
    const { sink, received } = recordingSink(() => (refuse ? { kind: 'rejected', reason: 'redis down' } : { kind: 'queued', sessionKey: 's' }));
    const envelope = double.events.p2pText('retry me');
    expect((await deliver(sink, envelope)).status).toBe(503);
    refuse = false;
    expect((await deliver(sink, envelope)).status).toBe(200);
    expect(received).toHaveLength(2);
    const throwing: InboundSink = async () => {
      throw new Error('boom');
    };
    expect((await deliver(throwing, double.events.p2pText('x'))).status).toBe(503);
  });

  it('acknowledges other events and ignored messages without a turn', async () => {
    const { sink, received } = recordingSink();
    const other = { ...double.events.p2pText('x'), header: { ...double.events.p2pText('x').header, event_type: 'im.chat.member.bot.added_v1' } };
    expect(await deliver(sink, other)).toEqual({ status: 200, body: {} });
    expect((await deliver(sink, double.events.p2pText('from a bot', { senderType: 'app' }))).status).toBe(200);
    expect((await deliver(sink, double.events.message('p2p', 'sticker', { file_key: 'sticker' }))).status).toBe(200);
    expect(received).toHaveLength(0);
  });

  it('acknowledges a verified card callback with {} and refuses a forged one', async () => {
    const callback = { schema: '2.0', header: { event_id: 'e1', event_type: 'card.action.trigger', token: double.verificationToken }, event: { action: { value: {} } } };
    const rawBody = JSON.stringify(double.encrypt(callback));
    expect(await post(recordingSink().sink, rawBody, double.signedHeaders(rawBody), FEISHU_CARDS_PATH)).toEqual({ status: 200, body: {} });
    const forged = { ...callback, header: { ...callback.header, token: 'forged' } };
    expect((await deliver(recordingSink().sink, forged, { path: FEISHU_CARDS_PATH })).status).toBe(401);
    // the right token, but unsigned: with an encrypt key a card callback must be signed like an event
    expect((await post(recordingSink().sink, callback, {}, FEISHU_CARDS_PATH)).status).toBe(401);
    expect((await post(recordingSink().sink, double.encrypt(callback), {}, FEISHU_CARDS_PATH)).status).toBe(401);
  });

  it('checks the sha1 signature of an old-style card callback, which must be there and fresh', async () => {
    const rawBody = JSON.stringify({ open_id: 'ou_user_1', open_message_id: 'om_card', token: double.verificationToken, action: { tag: 'button', value: {} } });
    expect((await post(recordingSink().sink, rawBody, double.legacyCardHeaders(rawBody), FEISHU_CARDS_PATH)).status).toBe(200);
    expect((await post(recordingSink().sink, rawBody, double.legacyCardHeaders(rawBody, 'other-token'), FEISHU_CARDS_PATH)).status).toBe(401);
    expect((await post(recordingSink().sink, rawBody, {}, FEISHU_CARDS_PATH)).status).toBe(401);
    expect((await post(recordingSink().sink, rawBody, double.legacyCardHeaders(rawBody, double.verificationToken, Date.now() - 6 * 60_000), FEISHU_CARDS_PATH)).status).toBe(401);
    // the sha1 path is for old cards only: an event signed that way is not signed
    const event = JSON.stringify(double.events.p2pText('sha1 signed'));
    expect((await post(recordingSink().sink, event, double.legacyCardHeaders(event))).status).toBe(401);
  });
});

describe('feishu signature freshness (X-Lark-Request-Timestamp within 5 minutes)', () => {
  const NOW = Date.parse('2026-11-22T12:00:00Z');
  let double: FeishuDouble;
  let channel: Channel;

  beforeEach(async () => {
    double = await startFeishuDouble();
    channel = await startChannel(double, { now: () => NOW });
  });
  afterEach(() => double.close());

  const deliverAt = (sink: InboundSink, atMs: number, text: string, encrypt = false) => {
    const { rawBody, headers } = double.delivery(double.events.p2pText(text), { atMs, encrypt });
    return routeAt(channel, sink, FEISHU_EVENTS_PATH).handle({ headers, rawBody });
  };

  it('refuses a signed event 6 minutes old or 6 minutes ahead with 401, plain or encrypted', async () => {
    const { sink, received } = recordingSink();
    expect((await deliverAt(sink, NOW - 6 * 60_000, 'replayed from the past'))).toEqual({ status: 401, body: { error: expect.stringContaining('timestamp') } });
    expect((await deliverAt(sink, NOW + 6 * 60_000, 'from the future'))).toEqual({ status: 401, body: { error: expect.stringContaining('timestamp') } });
    expect((await deliverAt(sink, NOW - 6 * 60_000, 'replayed and encrypted', true)).status).toBe(401);
    // a year-old signed request, as the probe replayed it
    expect((await deliverAt(sink, NOW - 365 * 24 * 3600_000, 'a year old')).status).toBe(401);
    expect(received).toHaveLength(0);
  });

  it('accepts a signed event within the window, on either side', async () => {
    const { sink, received } = recordingSink();
    expect((await deliverAt(sink, NOW, 'now')).status).toBe(200);
    expect((await deliverAt(sink, NOW - 4 * 60_000, 'four minutes late')).status).toBe(200);
    expect((await deliverAt(sink, NOW + 4 * 60_000, 'clock four minutes ahead', true)).status).toBe(200);
    expect(received.map((message) => message.text)).toEqual(['now', 'four minutes late', 'clock four minutes ahead']);
  });

  it('refuses a timestamp that is not a number of seconds', async () => {
    const { sink, received } = recordingSink();
    const rawBody = JSON.stringify(double.events.p2pText('odd timestamp'));
    const sign = (timestamp: string) => {
      const headers = double.signedHeaders(rawBody, double.encryptKey, NOW);
      const nonce = headers['x-lark-request-nonce']!;
      const signature = createHash('sha256').update(timestamp + nonce + double.encryptKey + rawBody).digest('hex');
      return { ...headers, 'x-lark-request-timestamp': timestamp, 'x-lark-signature': signature };
    };
    for (const timestamp of ['', 'soon', '1e9', String(NOW)]) {
      expect((await routeAt(channel, sink, FEISHU_EVENTS_PATH).handle({ headers: sign(timestamp), rawBody })).status, timestamp).toBe(401);
    }
    expect((await routeAt(channel, sink, FEISHU_EVENTS_PATH).handle({ headers: sign(String(NOW / 1000)), rawBody })).status).toBe(200);
    expect(received).toHaveLength(1);
  });
});

describe('feishu webhook configuration', () => {
  it('takes only signed deliveries with only an encrypt key, and refuses everything with neither secret', async () => {
    const double = await startFeishuDouble();
    try {
      const onlyKey = await startChannel(double, { verificationToken: undefined });
      const { sink, received } = recordingSink();
      const encrypted = await routeAt(onlyKey, sink, FEISHU_EVENTS_PATH).handle(double.delivery(double.events.p2pText('ok'), { encrypt: true }));
      expect(encrypted.status).toBe(200);
      const unsigned = await routeAt(onlyKey, sink, FEISHU_EVENTS_PATH).handle({ headers: {}, rawBody: JSON.stringify(double.encrypt(double.events.p2pText('unsigned'))) });
      expect(unsigned.status).toBe(401);
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

  it('without an encrypt key, the verification token is the proof: unsigned plain events are taken', async () => {
    const double = await startFeishuDouble();
    try {
      const onlyToken = await startChannel(double, { encryptKey: undefined });
      const { sink, received } = recordingSink();
      const route = routeAt(onlyToken, sink, FEISHU_EVENTS_PATH);
      expect((await route.handle({ headers: {}, rawBody: JSON.stringify(double.events.p2pText('token only')) })).status).toBe(200);
      const wrongToken = double.events.p2pText('wrong token');
      wrongToken.header.token = 'nope';
      expect((await route.handle({ headers: {}, rawBody: JSON.stringify(wrongToken) })).status).toBe(401);
      expect(received.map((message) => message.text)).toEqual(['token only']);
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
