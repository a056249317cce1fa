import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Channel } from '../../../src/core/index.js';
import { startSlackDouble, type SlackDouble } from '../../doubles/slack-double.js';
import { capturingLogger } from '../shared/capturing-logger.js';
import { post, recordingSink, startSlackChannel, waitFor } from './channel-fixture.js';
import { startSocketModeServer } from './websocket-server.js';

const EVENTS = '/webhooks/slack/events';
const INTERACTIONS = '/webhooks/slack/interactions';

/** A DM envelope with its event changed by `change` (a deep copy). */
function dmWith(double: SlackDouble, change: (event: Record<string, any>, envelope: Record<string, any>) => void, text = 'hello') {
  const envelope = structuredClone(double.makeEvent.dm('U0ALICE01', text)) as Record<string, any>;
  change(envelope.event, envelope);
  return envelope;
}

describe('slack events webhook: bad but authentic data', () => {
  let double: SlackDouble;
  let channel: Channel;

  beforeEach(async () => {
    double = await startSlackDouble();
    channel = await startSlackChannel(double);
  });
  afterEach(() => double.close());

  it.each([
    ['user is an object', (event: Record<string, any>) => (event.user = { id: 'U0ALICE01' })],
    ['text is a number', (event: Record<string, any>) => (event.text = 42)],
    ['channel is a number', (event: Record<string, any>) => (event.channel = 7)],
    ['ts is a number', (event: Record<string, any>) => (event.ts = 1700000000.0001)],
    ['thread_ts is an object', (event: Record<string, any>) => (event.thread_ts = {})],
    ['subtype is a number', (event: Record<string, any>) => (event.subtype = 1)],
    ['bot_id is an object', (event: Record<string, any>) => (event.bot_id = { id: 'B1' })],
    ['hidden is a string', (event: Record<string, any>) => (event.hidden = 'true')],
    ['type is a number', (event: Record<string, any>) => (event.type = 5)],
  ])('refuses a message event whose %s with 400, not 5xx', async (_name, change) => {
    const { sink, received } = recordingSink();
    const response = await post(channel, sink, double.signedRequest(EVENTS, dmWith(double, change)));
    expect(response).toEqual({ status: 400, body: { error: expect.any(String) } });
    expect(received).toHaveLength(0);
  });

  it('drops optional fields of the wrong type and answers the message', async () => {
    const { sink, received } = recordingSink();
    const envelope = dmWith(double, (event, outer) => {
      event.channel_type = 5;
      event.user_profile = { display_name: 7, real_name: 'Alice Liddell', name: ['alice'] };
      event.parent_user_id = {};
      outer.event_id = 12;
      outer.team_id = null;
    });
    expect((await post(channel, sink, double.signedRequest(EVENTS, envelope))).status).toBe(200);
    expect(received).toHaveLength(1);
    // the channel type is inferred from the D… channel id instead
    expect(received[0]).toMatchObject({ text: 'hello', sender: { id: 'U0ALICE01', name: 'Alice Liddell' }, conversation: { chatType: 'dm' } });
    expect(received[0]!.sender.username).toBeUndefined();
  });

  it('takes lone surrogates and NUL well formed, and dates an absurd ts at its receive time', async () => {
    const { sink, received } = recordingSink();
    const envelope = dmWith(double, (event) => {
      event.text = 'lone \uD800 and nul \u0000';
      event.user_profile = { display_name: 'Al\uDFFFice' };
      event.ts = '99999999999999.000100';
    });
    const before = Date.now();
    expect((await post(channel, sink, double.signedRequest(EVENTS, envelope))).status).toBe(200);
    expect(received[0]).toMatchObject({ text: 'lone \uFFFD and nul \uFFFD', sender: { name: 'Al\uFFFDice' } });
    expect(received[0]!.sentAt).toBeGreaterThanOrEqual(before);
    expect(received[0]!.sentAt).toBeLessThanOrEqual(Date.now());
  });

  it('leaves other event types alone, where `user` or `channel` are objects by design', async () => {
    const { sink, received } = recordingSink();
    const userChange = { ...double.makeEvent.dm('U0ALICE01', 'x'), event: { type: 'user_change', user: { id: 'U0ALICE01', name: 'alice' }, event_ts: '1.2' } };
    const channelCreated = { ...double.makeEvent.dm('U0ALICE01', 'x'), event: { type: 'channel_created', channel: { id: 'C0NEW', name: 'new' }, event_ts: '1.3' } };
    // an edit carries the message inside; it is no turn, whatever it holds
    const edit = dmWith(double, (event) => ((event.subtype = 'message_changed'), (event.message = { text: 5 }), delete event.user));
    for (const body of [userChange, channelCreated, edit]) {
      expect((await post(channel, sink, double.signedRequest(EVENTS, body))).status).toBe(200);
    }
    expect(received).toHaveLength(0);
  });

  it('refuses an interaction payload whose type is not a string with 400', async () => {
    const { sink } = recordingSink();
    const form = (payload: unknown) => double.signedRequest(INTERACTIONS, { payload: JSON.stringify(payload) }, { form: true });
    expect((await post(channel, sink, form({ type: 5 }))).status).toBe(400);
    expect((await post(channel, sink, form({ type: 'block_actions' }))).status).toBe(200);
  });
});

describe('slack socket mode: bad but authentic data', () => {
  let double: SlackDouble;
  let server: Awaited<ReturnType<typeof startSocketModeServer>>;
  let channel: Channel;
  const { logger, warnings } = capturingLogger();

  beforeEach(async () => {
    double = await startSlackDouble();
    server = await startSocketModeServer();
    double.setSocketUrl(server.url);
    channel = await startSlackChannel(double, { appToken: 'xapp-1-A0APP001-test', logger });
  });
  afterEach(async () => {
    await channel.stopInbound();
    await server.close();
    await double.close();
  });

  const acked = (envelopeId: string) => server.received.some((frame) => frame.envelope_id === envelopeId);

  it('acknowledges and drops wrongly typed envelopes with a warning, and takes the next message of the chat', async () => {
    const { sink, received } = recordingSink();
    await channel.startInbound(sink);
    server.send({ envelope_id: 'env-bad-user', type: 'events_api', payload: dmWith(double, (event) => (event.user = { id: 'U0ALICE01' })) });
    const command = { ...double.makeEvent.slashCommand('/status', { channel: 'D0ALICE01' }), user_id: 99 };
    server.send({ envelope_id: 'env-bad-command', type: 'slash_commands', payload: command });
    server.send({ envelope_id: 'env-good', type: 'events_api', payload: dmWith(double, () => undefined, 'the next one') });
    await waitFor(() => ['env-bad-user', 'env-bad-command', 'env-good'].every(acked));
    await waitFor(() => received.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received.map((message) => message.text)).toEqual(['the next one']);
    const reasons = warnings().map((line) => String(line.reason));
    expect(reasons.some((reason) => reason.includes('/user'))).toBe(true);
    expect(reasons.some((reason) => reason.includes('/user_id'))).toBe(true);
  });
});
