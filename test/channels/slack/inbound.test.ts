import { describe, expect, it } from 'vitest';
import { normalizeEvent, normalizeSlashCommand, type InboundLookups, type SlackIdentity, type SlackMessageEvent } from '../../../channels/slack/inbound.js';
import { readableText } from '../../../channels/slack/inbound-text.js';
import { sessionKeyOf } from '../../../src/core/index.js';

const BOT = 'UBOT0001';
const identity: SlackIdentity = { botUserId: BOT, teamId: 'T0TEAM01', agentId: 'main' };
const BOT_THREAD = '1700000000.000100';

const lookups: InboundLookups = {
  isBotThread: async (channel, threadTs) => channel === 'C0GENERAL' && threadTs === BOT_THREAD,
  channelName: async (channel) => (channel === 'C0GENERAL' ? 'general' : undefined),
};

const base = { user: 'U0ALICE01', ts: '1700000100.000200', team: 'T0TEAM01' };
const inChannel = (event: Partial<SlackMessageEvent>): SlackMessageEvent => ({ type: 'message', channel: 'C0GENERAL', channel_type: 'channel', ...base, ...event });

describe('slack event normalization', () => {
  it('a DM is a dm, addressed, in no thread', async () => {
    const message = await normalizeEvent({ type: 'message', channel: 'D0ALICE01', channel_type: 'im', ...base, text: 'hello there' }, identity, lookups);
    expect(message).toEqual({
      conversation: { channel: 'slack', accountId: 'T0TEAM01', chatId: 'D0ALICE01', chatType: 'dm', messageId: base.ts },
      dedupeKey: `slack:T0TEAM01:D0ALICE01:${base.ts}`,
      sender: { id: 'U0ALICE01' },
      text: 'hello there',
      sentAt: 1700000100000,
      platformOrder: 1700000100000200,
      addressed: true,
      agentId: 'main',
    });
    expect(sessionKeyOf(message!)).toBe('agent:main:slack:T0TEAM01:dm:U0ALICE01');
  });

  it('a DM inside a thread (assistant thread) keeps its thread', async () => {
    const message = await normalizeEvent({ type: 'message', channel: 'D0ALICE01', channel_type: 'im', ...base, text: 'hi', thread_ts: '1700000000.000001' }, identity, lookups);
    expect(message?.conversation.threadId).toBe('1700000000.000001');
    expect(message?.threadKind).toBe('thread');
    // titled by its first exchange; no context note without a lookup that knows one
    expect(message?.titled).toBe(true);
    expect(message?.contextNote).toBeUndefined();
  });

  it('a message in an assistant thread carries the thread\u2019s context note; a top-level DM and a channel thread neither', async () => {
    const withNote: InboundLookups = { ...lookups, assistantContextNote: async (channel, threadTs) => `viewing ${channel}/${threadTs}` };
    const inThread = await normalizeEvent({ type: 'message', channel: 'D0ALICE01', channel_type: 'im', ...base, text: 'hi', thread_ts: '1700000000.000001' }, identity, withNote);
    expect(inThread).toMatchObject({ titled: true, contextNote: 'viewing D0ALICE01/1700000000.000001' });
    const topLevel = await normalizeEvent({ type: 'message', channel: 'D0ALICE01', channel_type: 'im', ...base, text: 'hi' }, identity, withNote);
    expect(topLevel?.titled).toBeUndefined();
    expect(topLevel?.contextNote).toBeUndefined();
    const channelThread = await normalizeEvent(inChannel({ text: `<@${BOT}> hi`, thread_ts: BOT_THREAD }), identity, withNote);
    expect(channelThread?.titled).toBeUndefined();
    expect(channelThread?.contextNote).toBeUndefined();
  });

  it('a mention in a channel is addressed and answered in the thread of that message', async () => {
    const message = await normalizeEvent({ type: 'app_mention', channel: 'C0GENERAL', ...base, text: `<@${BOT}> what is new?` }, identity, lookups);
    expect(message).toMatchObject({
      conversation: { chatId: 'C0GENERAL', chatType: 'group', threadId: base.ts, messageId: base.ts },
      text: 'what is new?',
      addressed: true,
      chatTitle: 'general',
      threadKind: 'thread',
    });
    expect(sessionKeyOf(message!)).toBe(`agent:main:slack:T0TEAM01:group:C0GENERAL:thread:${base.ts}`);
  });

  it('app_mention and message.channels of one message give the same dedupe key', async () => {
    const text = `<@${BOT}> hi`;
    const mention = await normalizeEvent({ type: 'app_mention', channel: 'C0GENERAL', ...base, text }, identity, lookups);
    const message = await normalizeEvent(inChannel({ text }), identity, lookups);
    expect(message?.addressed).toBe(true);
    expect(message?.dedupeKey).toBe(mention?.dedupeKey);
    expect(message?.conversation).toEqual(mention?.conversation);
  });

  it.each([
    ['a reply in a thread the bot answered in', inChannel({ text: 'and then?', thread_ts: BOT_THREAD }), true],
    ['a reply in a thread the bot started', inChannel({ text: 'thanks', thread_ts: '1699999999.000001', parent_user_id: BOT }), true],
    ['a reply in someone else’s thread', inChannel({ text: 'agreed', thread_ts: '1699999999.000002', parent_user_id: 'U0BOB0001' }), false],
    ['a plain channel message', inChannel({ text: 'lunch?' }), false],
    ['a message mentioning someone else', inChannel({ text: '<@U0BOB0001> lunch?' }), false],
    ['a message mentioning the bot with a label', inChannel({ text: `hey <@${BOT}|doublebot> look` }), true],
  ])('%s → addressed %s', async (_name, event, addressed) => {
    const message = await normalizeEvent(event, identity, lookups);
    expect(message?.addressed).toBe(addressed);
    expect(message?.conversation.chatType).toBe('group');
    expect(message?.conversation.threadId).toBe(event.thread_ts ?? event.ts);
  });

  it.each([
    ['the bot’s own message', inChannel({ user: BOT, text: 'my answer' })],
    ['another bot’s message', inChannel({ bot_id: 'B0OTHER01', text: 'beep' })],
    ['a bot_message subtype', inChannel({ subtype: 'bot_message', text: 'beep' })],
    ['an edit (message_changed)', inChannel({ subtype: 'message_changed', text: undefined })],
    ['a deletion', inChannel({ subtype: 'message_deleted' })],
    ['a join', inChannel({ subtype: 'channel_join', text: '<@U0ALICE01> has joined the channel' })],
    ['an edited mention', { type: 'app_mention', channel: 'C0GENERAL', ...base, text: `<@${BOT}> hi`, edited: { user: 'U0ALICE01', ts: '1' } }],
    ['an empty message', inChannel({ text: '  ' })],
    ['another event type', { type: 'reaction_added', ...base }],
  ] as Array<[string, SlackMessageEvent]>)('ignores %s', async (_name, event) => {
    expect(await normalizeEvent(event, identity, lookups)).toBeUndefined();
  });

  it('keeps messages with files and thread broadcasts', async () => {
    expect(await normalizeEvent(inChannel({ subtype: 'file_share', text: `<@${BOT}> see file` }), identity, lookups)).toBeDefined();
    expect(await normalizeEvent(inChannel({ subtype: 'thread_broadcast', text: 'also here', thread_ts: BOT_THREAD }), identity, lookups)).toMatchObject({ addressed: true });
  });

  it('takes the sender’s name from the user profile when Slack sends it', async () => {
    const message = await normalizeEvent(inChannel({ text: 'x', user_profile: { display_name: 'Alice', name: 'alice' } }), identity, lookups);
    expect(message?.sender).toEqual({ id: 'U0ALICE01', name: 'Alice', username: 'alice' });
  });
});

describe('slack text', () => {
  it.each([
    [`<@${BOT}> stop`, '/stop'],
    [`<@${BOT}>   NEW`, '/new'],
    [`<@${BOT}>: reset please`, '/reset please'],
    [`<@${BOT}> status`, '/status'],
    [`<@${BOT}> help`, '/help'],
    [`<@${BOT}> compact`, '/compact'],
    [`<@${BOT}> /stop`, '/stop'],
    [`<@${BOT}> stopping is hard`, 'stopping is hard'],
    [`please <@${BOT}> stop`, 'please stop'],
    ['stop', 'stop'],
    [`<@${BOT}>`, `@${BOT}`],
    ['ask <@U0BOB0001> and <@U0CAROL01|carol>', 'ask @U0BOB0001 and @carol'],
    ['see <https://example.com/a?b=1&amp;c=2|the docs> or <https://example.com>', 'see the docs (https://example.com/a?b=1&c=2) or https://example.com'],
    ['mail <mailto:a@example.com|a@example.com>', 'mail a@example.com'],
    ['in <#C0GENERAL|general> and <#C0OTHER01>', 'in #general and #C0OTHER01'],
    ['<!here> <!channel> <!subteam^S0TEAM|@devs> <!date^1700000000^{date}|Nov 14>', '@here @channel @devs Nov 14'],
    ['a &lt; b &amp;&amp; c &gt; d &amp;lt;', 'a < b && c > d &lt;'],
  ])('%j → %j', (raw, readable) => {
    expect(readableText(raw, BOT) || readableText(raw, '')).toBe(readable);
  });
});

describe('slack slash commands', () => {
  it('become the chat command, addressed, in the channel, keyed by trigger id', () => {
    const message = normalizeSlashCommand(
      { command: '/stop', text: 'now', channel_id: 'C0GENERAL', channel_name: 'general', user_id: 'U0ALICE01', user_name: 'alice', trigger_id: '123.456' },
      identity,
    );
    expect(message).toMatchObject({
      conversation: { channel: 'slack', accountId: 'T0TEAM01', chatId: 'C0GENERAL', chatType: 'group', messageId: '123.456' },
      dedupeKey: 'slack:T0TEAM01:C0GENERAL:command:123.456',
      sender: { id: 'U0ALICE01', username: 'alice' },
      text: '/stop now',
      chatTitle: 'general',
      addressed: true,
    });
    expect(message?.conversation.threadId).toBeUndefined();
  });

  it('in a DM are dm commands', () => {
    const message = normalizeSlashCommand({ command: '/new', channel_id: 'D0ALICE01', channel_name: 'directmessage', user_id: 'U0ALICE01', trigger_id: '1.2' }, identity);
    expect(message).toMatchObject({ conversation: { chatType: 'dm' }, text: '/new' });
    expect(sessionKeyOf(message!)).toBe('agent:main:slack:T0TEAM01:dm:U0ALICE01');
  });

  it('refuses incomplete payloads', () => {
    expect(normalizeSlashCommand({ command: '/stop', channel_id: 'C1', user_id: 'U1' }, identity)).toBeUndefined();
    expect(normalizeSlashCommand({ command: 'stop', channel_id: 'C1', user_id: 'U1', trigger_id: '1' }, identity)).toBeUndefined();
  });
});
