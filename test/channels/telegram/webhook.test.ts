import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Channel, WebhookRoute } from '../../../src/core/index.js';
import { startTelegramDouble, type TelegramDouble } from '../../doubles/telegram-double.js';
import { recordingSink, startChannel } from './channel-fixture.js';

const SECRET = 'webhook-secret-0123456789';

describe('telegram webhook route', () => {
  let double: TelegramDouble;
  let channel: Channel;

  beforeEach(async () => {
    double = await startTelegramDouble();
    channel = await startChannel(double, { mode: 'webhook', webhookSecret: SECRET });
  });
  afterEach(() => double.close());

  function routeWith(sink: ReturnType<typeof recordingSink>['sink']): WebhookRoute {
    const routes = channel.webhookRoutes(sink);
    expect(routes).toHaveLength(1);
    return routes[0] as WebhookRoute;
  }

  it('is POST /webhooks/telegram', () => {
    const route = routeWith(recordingSink().sink);
    expect(route).toMatchObject({ method: 'POST', path: '/webhooks/telegram' });
  });

  it('hands a verified update to the sink once, normalized', async () => {
    const { sink, received } = recordingSink();
    const update = double.makeUpdate.mention(-100200, 31, 'summarize this');
    const response = await routeWith(sink).handle({ headers: { 'x-telegram-bot-api-secret-token': SECRET }, rawBody: JSON.stringify(update) });
    expect(response.status).toBe(200);
    expect(response.body).toBeUndefined();
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      conversation: { channel: 'telegram', accountId: String(double.botId), chatId: '-100200', chatType: 'group' },
      dedupeKey: `telegram:${double.botId}:-100200:${update.message?.message_id}`,
      text: 'summarize this',
      addressed: true,
      agentId: 'main',
    });
  });

  it('accepts the header in any case', async () => {
    const { sink, received } = recordingSink();
    const response = await routeWith(sink).handle({
      headers: { 'X-Telegram-Bot-Api-Secret-Token': [SECRET] },
      rawBody: JSON.stringify(double.makeUpdate.privateText(5, 'hi')),
    });
    expect(response.status).toBe(200);
    expect(received).toHaveLength(1);
  });

  it('refuses a wrong or missing secret with 401 and enqueues nothing', async () => {
    const { sink, received } = recordingSink();
    const route = routeWith(sink);
    const rawBody = JSON.stringify(double.makeUpdate.privateText(5, 'hi'));
    for (const headers of [{ 'x-telegram-bot-api-secret-token': 'wrong' }, { 'x-telegram-bot-api-secret-token': `${SECRET}x` }, {}]) {
      expect((await route.handle({ headers, rawBody })).status).toBe(401);
    }
    expect(received).toHaveLength(0);
  });

  it('answers 400 to malformed JSON and to bodies that are not updates', async () => {
    const { sink, received } = recordingSink();
    const route = routeWith(sink);
    const headers = { 'x-telegram-bot-api-secret-token': SECRET };
    for (const rawBody of ['{not json', '[]', '"text"', '{"message":{}}', '{"update_id":"7"}', 'null']) {
      expect((await route.handle({ headers, rawBody })).status, rawBody).toBe(400);
    }
    expect(received).toHaveLength(0);
  });

  it('answers 200 without calling the sink for updates the bot ignores', async () => {
    const { sink, received } = recordingSink();
    const edited = { update_id: 5, edited_message: { ...double.makeUpdate.privateText(5, 'x').message, edit_date: 1 } };
    const response = await routeWith(sink).handle({ headers: { 'x-telegram-bot-api-secret-token': SECRET }, rawBody: JSON.stringify(edited) });
    expect(response.status).toBe(200);
    expect(received).toHaveLength(0);
  });

  it('answers 503 when the queue refuses the message, so Telegram retries', async () => {
    const { sink } = recordingSink(() => ({ kind: 'rejected', reason: 'redis down' }));
    const rawBody = JSON.stringify(double.makeUpdate.privateText(5, 'hi'));
    const response = await routeWith(sink).handle({ headers: { 'x-telegram-bot-api-secret-token': SECRET }, rawBody });
    expect(response.status).toBe(503);

    const throwing = channel.webhookRoutes(async () => {
      throw new Error('boom');
    })[0] as WebhookRoute;
    expect((await throwing.handle({ headers: { 'x-telegram-bot-api-secret-token': SECRET }, rawBody })).status).toBe(503);
  });
});

describe('telegram webhook registration', () => {
  it('registers the public URL with the secret at start', async () => {
    const double = await startTelegramDouble();
    try {
      const channel = await startChannel(double, { mode: 'webhook', webhookSecret: SECRET, publicUrl: 'https://bot.example.com/' });
      await channel.startInbound(recordingSink().sink);
      expect(double.callsOf('setWebhook').map((call) => call.params)).toEqual([
        { url: 'https://bot.example.com/webhooks/telegram', secret_token: SECRET, allowed_updates: ['message', 'callback_query', 'my_chat_member'] },
      ]);
      expect(double.callsOf('getUpdates')).toHaveLength(0);
      await channel.stopInbound();
    } finally {
      await double.close();
    }
  });

  it('registers nothing without a public URL, and mounts no route in polling mode', async () => {
    const double = await startTelegramDouble();
    try {
      const webhookChannel = await startChannel(double, { mode: 'webhook', webhookSecret: SECRET });
      await webhookChannel.startInbound(recordingSink().sink);
      expect(double.callsOf('setWebhook')).toHaveLength(0);
      const pollingChannel = await startChannel(double, { mode: 'polling' });
      expect(pollingChannel.webhookRoutes(recordingSink().sink)).toEqual([]);
    } finally {
      await double.close();
    }
  });

  it('refuses every call when webhook mode has no secret', async () => {
    const double = await startTelegramDouble();
    try {
      const channel = await startChannel(double, { mode: 'webhook' });
      const { sink, received } = recordingSink();
      const route = channel.webhookRoutes(sink)[0] as WebhookRoute;
      const response = await route.handle({ headers: { 'x-telegram-bot-api-secret-token': '' }, rawBody: JSON.stringify(double.makeUpdate.privateText(5, 'hi')) });
      expect(response.status).toBe(401);
      expect(received).toHaveLength(0);
    } finally {
      await double.close();
    }
  });
});
