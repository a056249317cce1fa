import type { Update } from 'grammy/types';
import { afterEach, describe, expect, it } from 'vitest';
import type { Channel, ChatMembershipChange, ChatMembershipOutcome } from '../../src/core/index.js';
import { feishuBotMembership, slackMembership, telegramMyChatMember } from '../doubles/membership-events.js';
import { startFeishuDouble } from '../doubles/feishu-double.js';
import { startSlackDouble } from '../doubles/slack-double.js';
import { startTelegramDouble } from '../doubles/telegram-double.js';
import { recordingSink as feishuSink, startChannel as startFeishuChannel, waitFor } from './feishu/channel-fixture.js';
import { startLongConnectionDouble } from './feishu/long-connection-double.js';
import { recordingSink as slackSink, startSlackChannel } from './slack/channel-fixture.js';
import { startSocketModeServer } from './slack/websocket-server.js';
import { recordingSink as telegramSink, startChannel as startTelegramChannel } from './telegram/channel-fixture.js';

/**
 * The bot's own membership changes reach the channel's membership sink over every transport that is not an HTTP
 * webhook (those are covered end to end in test/e2e/bot-removed.test.ts): Telegram long polling, Slack Socket
 * Mode, the Feishu long connection. Messages still go to the message sink.
 */
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function membershipSink(outcome: ChatMembershipOutcome = { kind: 'recorded' }) {
  const changes: ChatMembershipChange[] = [];
  return { changes, sink: async (change: ChatMembershipChange) => (changes.push(change), outcome) };
}

describe('membership changes over the connection transports', () => {
  it('Telegram long polling: my_chat_member (kicked, blocked, added back) goes to the membership sink, in chat order with messages', async () => {
    const double = await startTelegramDouble();
    cleanups.push(() => double.close());
    const channel: Channel = await startTelegramChannel(double, { mode: 'polling' });
    cleanups.push(() => channel.stopInbound());
    const membership = membershipSink();
    channel.onChatMembership!(membership.sink);
    const messages = telegramSink();
    await channel.startInbound(messages.sink);

    // in the order pushed: the double numbers them
    const push = ({ update_id: _id, ...update }: Update) => double.pushUpdate(update);
    push(telegramMyChatMember(double, -9101, { from: 'member', to: 'kicked', byUserId: 77 }));
    push(telegramMyChatMember(double, 9102, { from: 'member', to: 'kicked' }));
    push(telegramMyChatMember(double, -9101, { from: 'left', to: 'administrator', byUserId: 77 }));
    push(double.makeUpdate.privateText(9103, 'still a message'));
    await waitFor(() => membership.changes.length === 3 && messages.received.length === 1);
    expect(membership.changes.map(({ at: _at, ...change }) => change)).toEqual([
      { channel: 'telegram', accountId: String(double.botId), chat: { chatId: '-9101', chatType: 'group' }, change: 'removed', reason: 'kicked', by: '77' },
      { channel: 'telegram', accountId: String(double.botId), chat: { chatId: '9102', chatType: 'dm', userId: '9102' }, change: 'removed', reason: 'blocked', by: '9102' },
      { channel: 'telegram', accountId: String(double.botId), chat: { chatId: '-9101', chatType: 'group' }, change: 'added', reason: 'added', by: '77' },
    ]);
    expect(messages.received[0]!.text).toBe('still a message');
  });

  it('Slack Socket Mode: member_left_channel / member_joined_channel of the bot and app_uninstalled; another member leaving is not the bot', async () => {
    const double = await startSlackDouble();
    cleanups.push(() => double.close());
    const server = await startSocketModeServer();
    cleanups.push(() => server.close());
    double.setSocketUrl(server.url);
    const channel = await startSlackChannel(double, { appToken: 'xapp-1-A0APP001-test' });
    cleanups.push(() => channel.stopInbound());
    const membership = membershipSink();
    channel.onChatMembership!(membership.sink);
    const messages = slackSink();
    await channel.startInbound(messages.sink);
    const bot = { botUserId: double.botUserId, teamId: double.teamId };

    const envelopes = [slackMembership.otherLeft(bot, 'C0SOCKET1', 'U0OTHER01'), slackMembership.left(bot, 'C0SOCKET1'), slackMembership.joined(bot, 'C0SOCKET1'), slackMembership.uninstalled(bot)];
    envelopes.forEach((payload, index) => server.send({ envelope_id: `env-m${index}`, type: 'events_api', payload, accepts_response_payload: false, retry_attempt: 0, retry_reason: '' }));
    await waitFor(() => membership.changes.length === 3);
    expect(membership.changes.map(({ chat, change, reason }) => ({ chat, change, reason }))).toEqual([
      { chat: { chatId: 'C0SOCKET1', chatType: 'group' }, change: 'removed', reason: 'left the channel' },
      { chat: { chatId: 'C0SOCKET1', chatType: 'group' }, change: 'added', reason: 'added to the channel' },
      { chat: undefined, change: 'removed', reason: 'the app was uninstalled' },
    ]);
    expect(membership.changes.every((change) => change.channel === 'slack' && change.accountId === double.teamId)).toBe(true);
    expect(messages.received).toHaveLength(0);
  });

  it('Feishu long connection: im.chat.member.bot.deleted_v1 / added_v1; a change not recorded answers 500 so Feishu redelivers', async () => {
    const double = await startFeishuDouble();
    cleanups.push(() => double.close());
    const longConnection = await startLongConnectionDouble();
    cleanups.push(() => longConnection.close());
    double.setLongConnectionUrl(longConnection.url);
    const channel = await startFeishuChannel(double, { mode: 'websocket' });
    cleanups.push(() => channel.stopInbound());
    let outcome: ChatMembershipOutcome = { kind: 'recorded' };
    const changes: ChatMembershipChange[] = [];
    channel.onChatMembership!(async (change) => (changes.push(change), outcome));
    await channel.startInbound(feishuSink().sink);
    await longConnection.waitForConnection();

    expect(await longConnection.pushEvent(feishuBotMembership(double, 'deleted', 'oc_ws_group'))).toEqual({ code: 200 });
    expect(await longConnection.pushEvent(feishuBotMembership(double, 'added', 'oc_ws_group'))).toEqual({ code: 200 });
    outcome = { kind: 'rejected', reason: 'database down' };
    expect(await longConnection.pushEvent(feishuBotMembership(double, 'deleted', 'oc_ws_group'))).toEqual({ code: 500 });
    expect(changes.map(({ channel: platform, accountId, chat, change, by }) => ({ platform, accountId, chat, change, by }))).toEqual([
      { platform: 'feishu', accountId: double.appId, chat: { chatId: 'oc_ws_group', chatType: 'group' }, change: 'removed', by: 'ou_operator_1' },
      { platform: 'feishu', accountId: double.appId, chat: { chatId: 'oc_ws_group', chatType: 'group' }, change: 'added', by: 'ou_operator_1' },
      { platform: 'feishu', accountId: double.appId, chat: { chatId: 'oc_ws_group', chatType: 'group' }, change: 'removed', by: 'ou_operator_1' },
    ]);
  });
});
