import type { Update } from 'grammy/types';
import { describe, expect, it } from 'vitest';
import { normalizeUpdate, type BotIdentity } from '../../../channels/telegram/inbound.js';
import { createUpdateFactory } from '../../doubles/telegram-double.js';

const identity: BotIdentity = { botId: 4242, botUsername: 'HelperBot', agentId: 'main' };
const make = createUpdateFactory({ id: identity.botId, username: identity.botUsername });
const normalize = (update: Update) => normalizeUpdate(update, identity);

describe('normalizeUpdate', () => {
  it('normalizes a private message as an addressed DM', () => {
    const update = make.privateText(77, 'hello there');
    const message = normalize(update);
    expect(message).toEqual({
      conversation: { channel: 'telegram', accountId: '4242', chatId: '77', chatType: 'dm', messageId: String(update.message?.message_id) },
      dedupeKey: `telegram:4242:77:${update.message?.message_id}`,
      sender: { id: '77', name: 'User 77', username: 'user77' },
      text: 'hello there',
      sentAt: (update.message?.date ?? 0) * 1000,
      platformOrder: update.message?.message_id,
      addressed: true,
      agentId: 'main',
    });
  });

  it('gives a redelivered update the same dedupe key', () => {
    const update = make.privateText(77, 'once');
    expect(normalize({ ...update, update_id: update.update_id + 1 })?.dedupeKey).toBe(normalize(update)?.dedupeKey);
  });

  it('keeps unaddressed group messages as context, with the chat title', () => {
    const message = normalize(make.groupText(-100123, 5, 'just chatting'));
    expect(message?.conversation.chatType).toBe('group');
    expect(message?.chatTitle).toBe('Test group');
    expect(message?.addressed).toBe(false);
  });

  it('addresses and strips an @mention of the bot, in any case', () => {
    const message = normalize(make.mention(-100123, 5, 'what time is it?'));
    expect(message?.addressed).toBe(true);
    expect(message?.text).toBe('what time is it?');

    const midSentence = 'hey @helperbot can you help';
    const update = make.groupText(-100123, 5, midSentence, { entities: [{ type: 'mention', offset: 4, length: 10 }] });
    expect(normalize(update)).toMatchObject({ addressed: true, text: 'hey can you help' });
  });

  it('measures entity offsets in UTF-16 units (emoji before the mention)', () => {
    const text = '👋🏽 @HelperBot hi';
    const update = make.groupText(-1, 5, text, { entities: [{ type: 'mention', offset: 5, length: 10 }] });
    expect(normalize(update)).toMatchObject({ addressed: true, text: '👋🏽 hi' });
  });

  it('does not count a mention of someone else', () => {
    const update = make.groupText(-1, 5, '@OtherBot hi', { entities: [{ type: 'mention', offset: 0, length: 9 }] });
    expect(normalize(update)).toMatchObject({ addressed: false, text: '@OtherBot hi' });
  });

  it('addresses a text_mention of the bot', () => {
    const update = make.groupText(-1, 5, 'Helper do it', {
      entities: [{ type: 'text_mention', offset: 0, length: 6, user: { id: 4242, is_bot: true, first_name: 'Helper' } }],
    });
    expect(normalize(update)?.addressed).toBe(true);
  });

  it('addresses a reply to the bot, but not a reply to someone else', () => {
    expect(normalize(make.reply(-1, 5, 'and then?'))?.addressed).toBe(true);
    const toHuman = make.groupText(-1, 5, 'agreed', {
      reply_to_message: { message_id: 3, date: 0, chat: { id: -1, type: 'supergroup', title: 'g' }, from: { id: 9, is_bot: false, first_name: 'Ann' }, text: 'x' },
    });
    expect(normalize(toHuman)?.addressed).toBe(false);
  });

  it('turns /stop@BotName args into /stop args and addresses it', () => {
    const message = normalize(make.command(-1, 5, 'stop', { target: 'HelperBot', args: 'now please' }));
    expect(message).toMatchObject({ text: '/stop now please', addressed: true });
    expect(normalize(make.command(-1, 5, 'status'))).toMatchObject({ text: '/status', addressed: true });
  });

  it("ignores another bot's command in a group", () => {
    expect(normalize(make.command(-1, 5, 'stop', { target: 'OtherBot' }))).toBeUndefined();
  });

  it('maps a forum topic message to threadId and threadKind topic', () => {
    const update = make.groupText(-100555, 5, '@HelperBot in topic', {
      message_thread_id: 42,
      is_topic_message: true,
      entities: [{ type: 'mention', offset: 0, length: 10 }],
      reply_to_message: { message_id: 42, date: 0, chat: { id: -100555, type: 'supergroup', title: 'f' }, from: { id: 4242, is_bot: true, first_name: 'Helper' } },
    });
    const message = normalize(update);
    expect(message?.conversation.threadId).toBe('42');
    expect(message?.threadKind).toBe('topic');
    expect(message?.text).toBe('in topic');
  });

  it('does not treat the implicit reply to a topic root as a reply to the bot', () => {
    const update = make.groupText(-100555, 5, 'plain topic message', {
      message_thread_id: 42,
      is_topic_message: true,
      reply_to_message: { message_id: 42, date: 0, chat: { id: -100555, type: 'supergroup', title: 'f' }, from: { id: 4242, is_bot: true, first_name: 'Helper' } },
    });
    expect(normalize(update)?.addressed).toBe(false);
  });

  it('ignores a thread id outside forum topics', () => {
    const update = make.groupText(-1, 5, 'reply thread', { message_thread_id: 9 });
    expect(normalize(update)?.conversation.threadId).toBeUndefined();
  });

  it('uses the caption of media messages', () => {
    const update = make.privateText(77, '', { text: undefined, photo: [{ file_id: 'f', file_unique_id: 'u', width: 1, height: 1 }], caption: 'look at this' });
    expect(normalize(update)?.text).toBe('look at this');
  });

  it('takes the largest photo size as an image reference, never bytes', () => {
    const photo = [
      { file_id: 'small', file_unique_id: 'a', width: 90, height: 60, file_size: 900 },
      { file_id: 'large', file_unique_id: 'c', width: 1280, height: 853, file_size: 90_000 },
      { file_id: 'medium', file_unique_id: 'b', width: 320, height: 213, file_size: 9_000 },
    ];
    const message = normalize(make.privateText(77, '', { text: undefined, photo, media_group_id: 'album-1' }));
    expect(message?.text).toBe('');
    expect(message?.attachments).toEqual([{ kind: 'image', mimeType: 'image/jpeg', platformFileId: 'large', ref: 'large', size: 90_000 }]);
    expect(message?.mediaGroupId).toBe(`telegram:${identity.botId}:77:album-1`);
  });

  it('normalizes documents, voice notes, audio and video notes', () => {
    const document = normalize(make.privateText(77, '', { text: undefined, document: { file_id: 'd1', file_unique_id: 'd', file_name: 'notes.txt', mime_type: 'text/plain', file_size: 12 } }));
    expect(document?.attachments).toEqual([{ kind: 'document', fileName: 'notes.txt', mimeType: 'text/plain', platformFileId: 'd1', ref: 'd1', size: 12 }]);
    const voice = normalize(make.privateText(77, '', { text: undefined, voice: { file_id: 'v1', file_unique_id: 'v', duration: 3, mime_type: 'audio/ogg', file_size: 5000 } }));
    expect(voice?.attachments).toEqual([{ kind: 'audio', fileName: 'voice.ogg', mimeType: 'audio/ogg', platformFileId: 'v1', ref: 'v1', durationSeconds: 3, size: 5000 }]);
    const audio = normalize(make.privateText(77, 'listen', { audio: { file_id: 'a1', file_unique_id: 'a', duration: 60, file_name: 'song.mp3', mime_type: 'audio/mpeg' } }));
    expect(audio?.attachments?.[0]).toMatchObject({ kind: 'audio', fileName: 'song.mp3', mimeType: 'audio/mpeg', platformFileId: 'a1' });
    const note = normalize(make.privateText(77, '', { text: undefined, video_note: { file_id: 'n1', file_unique_id: 'n', length: 240, duration: 4 } }));
    expect(note?.attachments?.[0]).toMatchObject({ kind: 'audio', mimeType: 'video/mp4', platformFileId: 'n1', durationSeconds: 4 });
  });

  it('ignores updates the bot does not answer', () => {
    const base = make.privateText(77, 'x');
    const message = base.message as NonNullable<Update['message']>;
    const ignored: Update[] = [
      { update_id: 1, edited_message: { ...message, edit_date: 1 } } as Update,
      { update_id: 2, channel_post: { ...message, chat: { id: -100, type: 'channel', title: 'c' } } } as Update,
      make.groupText(-1, 5, '', { text: undefined, new_chat_members: [{ id: 8, is_bot: false, first_name: 'New' }] }),
      make.privateText(77, '', { text: undefined, sticker: { file_id: 'f' } }),
      make.groupText(-1, 5, 'beep', { from: { id: 99, is_bot: true, first_name: 'Robot' } }),
      { update_id: 3, callback_query: { id: 'q', from: message.from, chat_instance: 'c' } } as Update,
    ];
    for (const update of ignored) expect(normalize(update)).toBeUndefined();
  });
});
