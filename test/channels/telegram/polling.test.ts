import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Channel, InboundMessage } from '../../../src/core/index.js';
import { startTelegramDouble, type TelegramDouble } from '../../doubles/telegram-double.js';
import { recordingSink, startChannel, waitFor } from './channel-fixture.js';

describe('telegram long polling', () => {
  let double: TelegramDouble;
  let channel: Channel;

  beforeEach(async () => {
    double = await startTelegramDouble();
    channel = await startChannel(double, { mode: 'polling' });
  });
  afterEach(async () => {
    await channel.stopInbound();
    await double.close();
  });

  it('deletes the webhook first, keeping pending updates', async () => {
    await channel.startInbound(recordingSink().sink);
    expect(double.calls.map((call) => call.method).filter((method) => method !== 'getUpdates')).toEqual(['getMe', 'deleteWebhook']);
    expect(double.callsOf('deleteWebhook')[0]?.params).toEqual({ drop_pending_updates: false });
    await waitFor(() => double.callsOf('getUpdates').length > 0);
    expect(double.callsOf('getUpdates')[0]?.params).toMatchObject({ allowed_updates: ['message', 'callback_query', 'my_chat_member'], timeout: 30 });
  });

  it('delivers pushed updates to the sink, in order within each chat', async () => {
    // a slow, jittery sink: without per-chat sequencing, later messages would overtake earlier ones
    const { sink, received } = recordingSink(async (message) => {
      await new Promise((resolve) => setTimeout(resolve, Number(message.text.split(' ')[1]) % 3 === 0 ? 40 : 5));
      return { kind: 'queued', sessionKey: message.conversation.chatId };
    });
    await channel.startInbound(sink);
    for (let index = 0; index < 12; index += 1) {
      double.pushUpdate(double.makeUpdate.privateText(index % 2 === 0 ? 101 : 202, `message ${index}`));
    }
    await waitFor(() => received.length === 12);
    const textsOf = (chatId: string) => received.filter((message) => message.conversation.chatId === chatId).map((message) => message.text);
    expect(textsOf('101')).toEqual([0, 2, 4, 6, 8, 10].map((index) => `message ${index}`));
    expect(textsOf('202')).toEqual([1, 3, 5, 7, 9, 11].map((index) => `message ${index}`));
  });

  it('skips updates the bot ignores and confirms them with the offset', async () => {
    const { sink, received } = recordingSink();
    await channel.startInbound(sink);
    double.pushUpdate(double.makeUpdate.command(-100300, 7, 'stop', { target: 'SomeOtherBot' }));
    const last = double.pushUpdate(double.makeUpdate.privateText(7, 'for me'));
    await waitFor(() => received.length === 1);
    expect(received[0]?.text).toBe('for me');
    await waitFor(() => double.callsOf('getUpdates').some((call) => Number(call.params.offset) === last.update_id + 1));
  });

  it('retries a message the sink refused, since Telegram will not redeliver it', async () => {
    let refusals = 1;
    const { sink, received } = recordingSink(() => (refusals-- > 0 ? { kind: 'rejected', reason: 'queue unavailable' } : { kind: 'queued', sessionKey: 's' }));
    await channel.startInbound(sink);
    double.pushUpdate(double.makeUpdate.privateText(7, 'keep me'));
    await waitFor(() => received.length === 2);
    expect(received.map((message: InboundMessage) => message.text)).toEqual(['keep me', 'keep me']);
  });

  it('stops promptly and receives nothing after stopping', async () => {
    const { sink, received } = recordingSink();
    await channel.startInbound(sink);
    await waitFor(() => double.callsOf('getUpdates').length > 0);
    const started = Date.now();
    await channel.stopInbound();
    expect(Date.now() - started).toBeLessThan(2000);
    double.pushUpdate(double.makeUpdate.privateText(7, 'too late'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received).toHaveLength(0);
  });

  it('confirms an update only after the sink took it: stopped while it was being handled, the next poller fetches it again', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { sink, received } = recordingSink(async (message) => {
      if (message.text !== 'slow') return { kind: 'queued', sessionKey: 's' };
      await held;
      return { kind: 'rejected', reason: 'the process is going away' };
    });
    await channel.startInbound(sink);
    const slow = double.pushUpdate(double.makeUpdate.privateText(7, 'slow'));
    await waitFor(() => received.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // nothing asked Telegram for the updates after it while it was being handled
    expect(double.callsOf('getUpdates').every((call) => call.params.offset === undefined || Number(call.params.offset) <= slow.update_id)).toBe(true);
    const stopped = channel.stopInbound();
    release();
    await stopped;

    const next = await startChannel(double, { mode: 'polling' });
    const again = recordingSink();
    await next.startInbound(again.sink);
    try {
      await waitFor(() => again.received.length === 1);
      expect(again.received[0]!.text).toBe('slow');
    } finally {
      await next.stopInbound();
    }
  });

  it('can start again after a stop without delivering twice', async () => {
    const { sink, received } = recordingSink();
    await channel.startInbound(sink);
    await channel.stopInbound();
    await channel.startInbound(sink);
    double.pushUpdate(double.makeUpdate.privateText(7, 'once'));
    await waitFor(() => received.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received).toHaveLength(1);
  });
});

describe('telegram command registration', () => {
  const commands = [
    { command: 'stop', description: 'Stop the running answer' },
    { command: 'new', description: 'Start a new conversation' },
  ];

  it('calls setMyCommands only when the list changed, across restarts', async () => {
    const double = await startTelegramDouble();
    try {
      for (let start = 0; start < 2; start += 1) {
        const channel = await startChannel(double, { mode: 'polling', commandNames: commands });
        await channel.startInbound(recordingSink().sink);
        await channel.stopInbound();
      }
      expect(double.callsOf('getMyCommands')).toHaveLength(2);
      expect(double.callsOf('setMyCommands').map((call) => call.params)).toEqual([{ commands }]);

      const changed = [...commands, { command: 'help', description: 'List the commands' }];
      const channel = await startChannel(double, { mode: 'webhook', webhookSecret: 's', commandNames: changed });
      await channel.startInbound(recordingSink().sink);
      expect(double.callsOf('setMyCommands')).toHaveLength(2);
      expect(double.callsOf('setMyCommands')[1]?.params).toEqual({ commands: changed });
    } finally {
      await double.close();
    }
  });
});
