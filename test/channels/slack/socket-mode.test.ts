import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Channel, InboundMessage } from '../../../src/core/index.js';
import { startSlackDouble, type SlackDouble } from '../../doubles/slack-double.js';
import { recordingSink, startSlackChannel, waitFor } from './channel-fixture.js';
import { startSocketModeServer } from './websocket-server.js';

describe('slack socket mode', () => {
  let double: SlackDouble;
  let server: Awaited<ReturnType<typeof startSocketModeServer>>;
  let channel: Channel;

  beforeEach(async () => {
    double = await startSlackDouble();
    server = await startSocketModeServer();
    double.setSocketUrl(server.url);
    channel = await startSlackChannel(double, { appToken: 'xapp-1-A0APP001-test' });
  });
  afterEach(async () => {
    await channel.stopInbound();
    await server.close();
    await double.close();
  });

  const acked = (envelopeId: string) => server.received.some((frame) => frame.envelope_id === envelopeId);

  it('connects with the app token, acknowledges each envelope before handling it, and feeds the sink', async () => {
    const received: InboundMessage[] = [];
    await channel.startInbound(async (message) => {
      // were the ack sent after the sink, this would wait in vain
      await waitFor(() => acked(`env-${received.length + 1}`), 2000);
      received.push(message);
      return { kind: 'queued', sessionKey: 's' };
    });
    expect(double.callsOf('apps.connections.open')).toHaveLength(1);

    const mention = double.makeEvent.mention('C0GENERAL', 'U0ALICE01', 'hello over the socket');
    server.send({ envelope_id: 'env-1', type: 'events_api', payload: mention, accepts_response_payload: false, retry_attempt: 0, retry_reason: '' });
    await waitFor(() => received.length === 1);
    expect(received[0]).toMatchObject({
      conversation: { chatId: 'C0GENERAL', chatType: 'group', threadId: mention.event.ts },
      dedupeKey: `slack:${double.teamId}:C0GENERAL:${mention.event.ts}`,
      text: 'hello over the socket',
      addressed: true,
    });

    server.send({ envelope_id: 'env-2', type: 'slash_commands', payload: double.makeEvent.slashCommand('/stop', { channel: 'D0ALICE01' }), accepts_response_payload: true });
    await waitFor(() => received.length === 2);
    expect(received[1]).toMatchObject({ text: '/stop', conversation: { chatType: 'dm', chatId: 'D0ALICE01' } });
  });

  it('acknowledges events it ignores and passes a redelivered envelope to the sink once', async () => {
    const { sink, received } = recordingSink();
    await channel.startInbound(sink);
    const edit = double.makeEvent.channelMessage('C0GENERAL', 'U0ALICE01', 'x', { subtype: 'message_changed' });
    server.send({ envelope_id: 'env-edit', type: 'events_api', payload: edit });
    server.send({ envelope_id: 'env-button', type: 'interactive', payload: { type: 'block_actions' } });
    const dm = double.makeEvent.dm('U0ALICE01', 'hi');
    server.send({ envelope_id: 'env-dm', type: 'events_api', payload: dm, retry_attempt: 0 });
    server.send({ envelope_id: 'env-dm-again', type: 'events_api', payload: dm, retry_attempt: 1, retry_reason: 'timeout' });
    await waitFor(() => ['env-edit', 'env-button', 'env-dm', 'env-dm-again'].every(acked));
    await waitFor(() => received.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received).toHaveLength(1);
  });

  it('disconnects on stop', async () => {
    await channel.startInbound(recordingSink().sink);
    await waitFor(() => server.connections === 1);
    await channel.stopInbound();
    await waitFor(() => server.connections === 0);
  });
});
