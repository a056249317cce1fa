import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Channel } from '../../../src/core/index.js';
import { startSlackDouble, type SlackDouble } from '../../doubles/slack-double.js';
import { post, recordingSink, startSlackChannel } from './channel-fixture.js';

const EVENTS = '/webhooks/slack/events';
const COMMANDS = '/webhooks/slack/commands';

describe('slack events webhook', () => {
  let double: SlackDouble;
  let channel: Channel;

  beforeEach(async () => {
    double = await startSlackDouble();
    channel = await startSlackChannel(double);
  });
  afterEach(() => double.close());

  it('mounts the events, commands and interactions routes', () => {
    const routes = channel.webhookRoutes(recordingSink().sink);
    expect(routes.map((route) => `${route.method} ${route.path}`)).toEqual([
      'POST /webhooks/slack/events',
      'POST /webhooks/slack/commands',
      'POST /webhooks/slack/interactions',
    ]);
  });

  it('hands a verified event to the sink once, normalized, and answers 200', async () => {
    const { sink, received } = recordingSink();
    const body = double.makeEvent.mention('C0GENERAL', 'U0ALICE01', 'summarize this');
    const response = await post(channel, sink, double.signedRequest(EVENTS, body));
    expect(response.status).toBe(200);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      conversation: { channel: 'slack', accountId: double.teamId, chatId: 'C0GENERAL', chatType: 'group', threadId: body.event.ts },
      dedupeKey: `slack:${double.teamId}:C0GENERAL:${body.event.ts}`,
      text: 'summarize this',
      addressed: true,
      chatTitle: 'channel-c0general',
    });
  });

  it('refuses a bad signature or a stale timestamp with 401, and nothing reaches the sink', async () => {
    const { sink, received } = recordingSink();
    const body = double.makeEvent.dm('U0ALICE01', 'hi');
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 6 * 60;
    const tampered = double.signedRequest(EVENTS, body);
    const cases = [
      double.signedRequest(EVENTS, body, { secret: 'not-the-secret' }),
      double.signedRequest(EVENTS, body, { timestamp: sixMinutesAgo }),
      double.signedRequest(EVENTS, body, { timestamp: Math.floor(Date.now() / 1000) + 6 * 60 }),
      { ...tampered, rawBody: tampered.rawBody.replace('hi', 'ho') },
      { ...tampered, headers: { 'content-type': 'application/json' } },
      { ...tampered, headers: { ...tampered.headers, 'x-slack-signature': 'v1=abc' } },
      { ...tampered, headers: { ...tampered.headers, 'x-slack-request-timestamp': 'soon' } },
    ];
    for (const request of cases) expect((await post(channel, sink, request)).status).toBe(401);
    expect(received).toHaveLength(0);
  });

  it('answers url_verification with the challenge', async () => {
    const { sink, received } = recordingSink();
    const response = await post(channel, sink, double.signedRequest(EVENTS, { type: 'url_verification', token: 't', challenge: 'c-123' }));
    expect(response).toEqual({ status: 200, body: { challenge: 'c-123' } });
    expect(received).toHaveLength(0);
  });

  it('answers 400 to malformed bodies', async () => {
    const { sink, received } = recordingSink();
    for (const body of ['{not json', '[]', 'null', '{"type":"event_callback","event":"x"}']) {
      expect((await post(channel, sink, double.signedRequest(EVENTS, body))).status, body).toBe(400);
    }
    expect(received).toHaveLength(0);
  });

  it('answers 200 without calling the sink for events the bot ignores', async () => {
    const { sink, received } = recordingSink();
    const edit = double.makeEvent.channelMessage('C0GENERAL', 'U0ALICE01', 'x', { subtype: 'message_changed' });
    const own = double.makeEvent.channelMessage('C0GENERAL', double.botUserId, 'my answer');
    for (const body of [edit, own, { type: 'app_rate_limited', team_id: double.teamId }]) {
      expect((await post(channel, sink, double.signedRequest(EVENTS, body))).status).toBe(200);
    }
    expect(received).toHaveLength(0);
  });

  it('passes a redelivered event (X-Slack-Retry-Num) and the message.channels twin of a mention to the sink once', async () => {
    const { sink, received } = recordingSink();
    const mention = double.makeEvent.mention('C0GENERAL', 'U0ALICE01', 'hi');
    const twin = double.makeEvent.channelMessage('C0GENERAL', 'U0ALICE01', mention.event.text, { ts: mention.event.ts });
    const responses = await Promise.all([
      post(channel, sink, double.signedRequest(EVENTS, mention)),
      post(channel, sink, double.signedRequest(EVENTS, twin)),
    ]);
    const retry = await post(channel, sink, double.signedRequest(EVENTS, mention, { retryNum: 1 }));
    expect([...responses, retry].map((response) => response.status)).toEqual([200, 200, 200]);
    expect(received).toHaveLength(1);
  });

  it('gives a redelivery reaching another gateway process the same dedupe key', async () => {
    const other = await startSlackChannel(double);
    const first = recordingSink();
    const second = recordingSink();
    const body = double.makeEvent.dm('U0ALICE01', 'hello');
    await post(channel, first.sink, double.signedRequest(EVENTS, body));
    await post(other, second.sink, double.signedRequest(EVENTS, body, { retryNum: 1 }));
    expect(second.received[0]?.dedupeKey).toBe(first.received[0]?.dedupeKey);
  });

  it('answers 503 when the sink refuses or fails, so Slack retries, and accepts the retry', async () => {
    let refuse = true;
    const { sink, received } = recordingSink(() => (refuse ? { kind: 'rejected', reason: 'redis down' } : { kind: 'queued', sessionKey: 's' }));
    const body = double.makeEvent.dm('U0ALICE01', 'hello');
    expect((await post(channel, sink, double.signedRequest(EVENTS, body))).status).toBe(503);
    refuse = false;
    expect((await post(channel, sink, double.signedRequest(EVENTS, body, { retryNum: 1 }))).status).toBe(200);
    expect(received).toHaveLength(2);

    const throwing = async () => {
      throw new Error('boom');
    };
    expect((await post(channel, throwing, double.signedRequest(EVENTS, double.makeEvent.dm('U0ALICE01', 'x')))).status).toBe(503);
  });

  it('counts replies in a thread the bot answered in as addressed', async () => {
    const { sink, received } = recordingSink();
    const mention = double.makeEvent.mention('C0GENERAL', 'U0ALICE01', 'start');
    await post(channel, sink, double.signedRequest(EVENTS, mention));
    const before = double.makeEvent.threadReply('C0GENERAL', 'U0BOB0001', 'and you?', mention.event.ts);
    await post(channel, sink, double.signedRequest(EVENTS, before));
    await channel.send(received[0]!.conversation, 'answer in the thread');
    const after = double.makeEvent.threadReply('C0GENERAL', 'U0BOB0001', 'and now?', mention.event.ts);
    await post(channel, sink, double.signedRequest(EVENTS, after));
    expect(received.map((message) => message.addressed)).toEqual([true, false, true]);
    expect(received[2]?.conversation.threadId).toBe(mention.event.ts);
  });
});

describe('slack slash commands webhook', () => {
  let double: SlackDouble;
  let channel: Channel;

  beforeEach(async () => {
    double = await startSlackDouble();
    channel = await startSlackChannel(double);
  });
  afterEach(() => double.close());

  it('turns /stop into the chat command and answers 200 with an empty body', async () => {
    const { sink, received } = recordingSink(() => ({ kind: 'command', command: 'stop' }));
    const fields = double.makeEvent.slashCommand('/stop', { channel: 'D0ALICE01', user: 'U0ALICE01', text: 'please' });
    const response = await post(channel, sink, double.signedRequest(COMMANDS, fields, { form: true }));
    expect(response).toEqual({ status: 200 });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      conversation: { chatId: 'D0ALICE01', chatType: 'dm', messageId: fields.trigger_id },
      dedupeKey: `slack:${double.teamId}:D0ALICE01:command:${fields.trigger_id}`,
      text: '/stop please',
      addressed: true,
    });
  });

  it('verifies slash commands like events', async () => {
    const { sink, received } = recordingSink();
    const fields = double.makeEvent.slashCommand('/stop');
    const stale = double.signedRequest(COMMANDS, fields, { form: true, timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    expect((await post(channel, sink, stale)).status).toBe(401);
    expect((await post(channel, sink, double.signedRequest(COMMANDS, fields, { form: true, secret: 'wrong' }))).status).toBe(401);
    expect((await post(channel, sink, double.signedRequest(COMMANDS, 'text=hello', { form: true }))).status).toBe(400);
    expect(received).toHaveLength(0);
  });

  it('tells the person when the command could not be taken', async () => {
    const { sink } = recordingSink(() => ({ kind: 'rejected', reason: 'redis down' }));
    const response = await post(channel, sink, double.signedRequest(COMMANDS, double.makeEvent.slashCommand('/new'), { form: true }));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ response_type: 'ephemeral' });
  });

  it('acknowledges verified interactions', async () => {
    const { sink } = recordingSink();
    const payload = { payload: JSON.stringify({ type: 'block_actions', actions: [] }) };
    expect((await post(channel, sink, double.signedRequest('/webhooks/slack/interactions', payload, { form: true }))).status).toBe(200);
    expect((await post(channel, sink, double.signedRequest('/webhooks/slack/interactions', payload, { form: true, secret: 'x' }))).status).toBe(401);
  });
});

describe('createSlackChannel', () => {
  it('asks auth.test once and uses the team id as account id', async () => {
    const double = await startSlackDouble({ teamId: 'T0OTHER01', botUserId: 'UOTHERBOT' });
    try {
      const channel = await startSlackChannel(double);
      expect(channel.name).toBe('slack');
      expect(channel.accountId).toBe('T0OTHER01');
      expect(double.callsOf('auth.test')).toHaveLength(1);
      expect(channel.promptSection()).toContain('<@UOTHERBOT>');
      expect(channel.promptSection()).toContain('4000');
    } finally {
      await double.close();
    }
  });

  it('reports a refused token as a configuration error without the token', async () => {
    const double = await startSlackDouble();
    try {
      const error = await startSlackChannel(double, { botToken: 'xoxb-wrong' }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ name: 'BotError', code: 'config' });
      expect(String((error as Error).message)).not.toContain('xoxb-wrong');
    } finally {
      await double.close();
    }
  });

  it('mounts no routes in Socket Mode', async () => {
    const double = await startSlackDouble();
    try {
      const channel = await startSlackChannel(double, { appToken: 'xapp-1-test' });
      expect(channel.webhookRoutes(recordingSink().sink)).toEqual([]);
    } finally {
      await double.close();
    }
  });
});
