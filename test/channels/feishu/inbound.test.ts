import { describe, expect, it } from 'vitest';
import { normalizeMessageEvent, type FeishuIdentity } from '../../../channels/feishu/inbound.js';
import { createFeishuEvents } from '../../doubles/feishu-double.js';

const identity: FeishuIdentity = { appId: 'cli_a1b2c3d4e5f60718', botOpenId: 'ou_bot', botName: 'Helper', agentId: 'main' };
const events = createFeishuEvents({ appId: identity.appId, botOpenId: 'ou_bot', botName: 'Helper', verificationToken: 'token' });
const alice = { key: '@_user_2', openId: 'ou_alice', name: 'Alice' };

function normalize(envelope: { event: unknown }, options: { repliesToBot?: boolean } = {}) {
  return normalizeMessageEvent(envelope.event, identity, options);
}

function textOf(envelope: { event: unknown }, options: { repliesToBot?: boolean } = {}): { text: string; addressed: boolean } {
  const result = normalize(envelope, options);
  if (result.kind !== 'message') throw new Error(`ignored: ${result.reason}`);
  return { text: result.message.text, addressed: result.message.addressed };
}

describe('feishu inbound normalization', () => {
  it('normalizes a p2p text message into an addressed DM', () => {
    const envelope = events.p2pText('hello there', { userOpenId: 'ou_carol', chatId: 'oc_dm_1', messageId: 'om_100' });
    const result = normalize(envelope);
    expect(result).toEqual({
      kind: 'message',
      message: {
        conversation: { channel: 'feishu', accountId: identity.appId, chatId: 'oc_dm_1', chatType: 'dm', messageId: 'om_100' },
        dedupeKey: `feishu:${identity.appId}:oc_dm_1:om_100`,
        sender: { id: 'ou_carol' },
        text: 'hello there',
        sentAt: Number(envelope.event.message.create_time),
        platformOrder: Number(envelope.event.message.create_time),
        addressed: true,
        agentId: 'main',
      },
    });
  });

  it.each([
    ['group message mentioning the bot', events.groupMention('summarize this'), { text: 'summarize this', addressed: true }],
    ['group message without mention', events.groupText('just chatting'), { text: 'just chatting', addressed: false }],
    ['group slash command without mention', events.groupText('/status'), { text: '/status', addressed: true }],
    ['mention in the middle', events.groupText('hey @_user_1, what now?', { mentions: [{ key: '@_user_1', openId: 'ou_bot', name: 'Helper' }] }), { text: 'hey, what now?', addressed: true }],
    ['other people mentioned', events.groupMention('ask @_user_2 about it', { mentions: [alice] }), { text: 'ask @Alice about it', addressed: true }],
    ['only another person mentioned', events.groupText('@_user_2 look', { mentions: [alice] }), { text: '@Alice look', addressed: false }],
    [
      '@_user_1 and @_user_10 kept apart',
      events.groupText('@_user_1 and @_user_10', { mentions: [{ key: '@_user_1', openId: 'ou_a', name: 'A' }, { key: '@_user_10', openId: 'ou_j', name: 'J' }] }),
      { text: '@A and @J', addressed: false },
    ],
    ['@_all', events.groupText('@_all meeting at 3'), { text: '@all meeting at 3', addressed: false }],
    ['only the mention', events.groupMention(''), { text: '@Helper', addressed: true }],
  ])('%s', (_name, envelope, expected) => {
    expect(textOf(envelope)).toEqual(expected);
  });

  it('counts a group reply to one of the bot messages as addressed', () => {
    expect(textOf(events.groupText('and then?', { parentId: 'om_bot_1' }), { repliesToBot: true })).toEqual({ text: 'and then?', addressed: true });
  });

  it.each([
    ['@bot stop', events.groupMention('stop'), '/stop'],
    ['@bot /stop', events.groupMention('/stop'), '/stop'],
    ['@bot Reset.', events.groupMention('Reset.'), '/reset'],
    ['@bot new', events.groupMention('new'), '/new'],
    ['@bot help', events.groupMention('help'), '/help'],
    ['@bot stop the server (a sentence)', events.groupMention('stop the server'), 'stop the server'],
    ['stop in a DM without mention', events.p2pText('stop'), 'stop'],
    ['@bot /compact now', events.groupMention('/compact now'), '/compact now'],
  ])('commands: %s', (_name, envelope, text) => {
    expect(textOf(envelope).text).toBe(text);
  });

  it.each([
    [
      'post with a locale key',
      events.post({ zh_cn: { title: 'Plan', content: [[{ tag: 'text', text: 'step ' }, { tag: 'text', text: 'one', style: ['bold'] }], [{ tag: 'a', text: 'docs', href: 'https://example.com/d' }]] } } as never),
      'Plan\nstep one\ndocs (https://example.com/d)',
    ],
    [
      'post as received (no locale), bot and user mentions',
      events.post({ title: '', content: [[{ tag: 'at', user_id: '@_user_1', user_name: 'Helper' }, { tag: 'text', text: ' ping ' }, { tag: 'at', user_id: '@_user_2', user_name: 'Alice' }]] }, { mentionBot: true, mentions: [alice] }),
      'ping @Alice',
    ],
    [
      'post with code, image and emoji',
      events.post({ content: [[{ tag: 'text', text: 'see' }], [{ tag: 'code_block', language: 'GO', text: 'fmt.Println(1)' }], [{ tag: 'img', image_key: 'img_1' }, { tag: 'emotion', emoji_type: 'SMILE' }]] }, { chatType: 'p2p' }),
      'see\n\n```go\nfmt.Println(1)\n```\n\n[image]:SMILE:',
    ],
  ])('%s', (_name, envelope, text) => {
    expect(textOf(envelope).text).toBe(text);
  });

  it('reads the addressed state of a post from its mentions', () => {
    const post = events.post({ content: [[{ tag: 'at', user_id: '@_user_1', user_name: 'Helper' }, { tag: 'text', text: ' hi' }]] }, { mentionBot: true });
    expect(textOf(post)).toEqual({ text: 'hi', addressed: true });
    expect(textOf(events.post({ content: [[{ tag: 'text', text: 'hi' }]] }))).toEqual({ text: 'hi', addressed: false });
  });

  it('turns image, file, audio, media and post images into resource references', () => {
    const refOf = (messageId: string, fileKey: string, type: string) => JSON.stringify({ messageId, fileKey, type });
    const image = normalize(events.message('p2p', 'image', { image_key: 'img_1' }, { messageId: 'om_1' }));
    expect(image).toMatchObject({ kind: 'message', message: { text: '', attachments: [{ kind: 'image', platformFileId: 'img_1', ref: refOf('om_1', 'img_1', 'image') }] } });
    const file = normalize(events.message('p2p', 'file', { file_key: 'file_1', file_name: 'a.pdf' }, { messageId: 'om_2' }));
    expect(file).toMatchObject({ message: { attachments: [{ kind: 'document', fileName: 'a.pdf', platformFileId: 'file_1', ref: refOf('om_2', 'file_1', 'file') }] } });
    const audio = normalize(events.message('p2p', 'audio', { file_key: 'file_2', duration: 3200 }, { messageId: 'om_3' }));
    expect(audio).toMatchObject({ message: { attachments: [{ kind: 'audio', mimeType: 'audio/ogg', durationSeconds: 3, ref: refOf('om_3', 'file_2', 'file') }] } });
    const media = normalize(events.message('p2p', 'media', { file_key: 'file_3', image_key: 'img_cover', file_name: 'clip.mp4' }, { messageId: 'om_4' }));
    expect(media).toMatchObject({ message: { attachments: [{ kind: 'audio', fileName: 'clip.mp4', mimeType: 'video/mp4', platformFileId: 'file_3' }] } });
    const post = normalize(events.post({ content: [[{ tag: 'text', text: 'see' }], [{ tag: 'img', image_key: 'img_a' }, { tag: 'img', image_key: 'img_b' }]] }, { chatType: 'p2p', messageId: 'om_5' }));
    expect(post).toMatchObject({ message: { text: 'see\n[image][image]', attachments: [{ platformFileId: 'img_a' }, { platformFileId: 'img_b' }] } });
  });

  it.each([
    ['sent by an app (the bot itself or another bot)', events.p2pText('echo', { senderType: 'app' }), 'sent by sender_type app'],
    ['an image message without an image_key', events.message('p2p', 'image', { image_key: '' }), 'message_type image not supported'],
    ['a sticker', events.message('group', 'sticker', { file_key: 'f' }), 'message_type sticker not supported'],
    ['text content that is not JSON', events.message('p2p', 'text', 'not json'), 'unreadable text content'],
    ['an empty text', events.p2pText('   '), 'empty message'],
    ['not a message event', { event: { foo: 1 } }, 'not a message event'],
  ])('ignores %s', (_name, envelope, reason) => {
    expect(normalize(envelope)).toEqual({ kind: 'ignored', reason });
  });
});
