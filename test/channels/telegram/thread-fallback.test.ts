import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Channel, ChatMembershipChange, ConversationRef } from '../../../src/core/index.js';
import { startTelegramDouble, type TelegramDouble } from '../../doubles/telegram-double.js';
import { recordingProgress } from '../../support/recording-progress.js';
import { capturingLogger } from '../shared/capturing-logger.js';
import { startChannel, waitFor } from './channel-fixture.js';

const CHAT = -100500;
const topic: ConversationRef = { channel: 'telegram', accountId: '123456789', chatId: String(CHAT), chatType: 'group', threadId: '42', messageId: '9' };

// Telegram sometimes refuses a thread id (a topic deleted or closed, DM topics after a Bot API roll-out): the
// answer still arrives, once, in the main chat, and the refusal is logged naming the chat and the thread.
describe('telegram topic refused by the platform', () => {
  let double: TelegramDouble;
  let channel: Channel;
  let captured: ReturnType<typeof capturingLogger>;

  beforeEach(async () => {
    double = await startTelegramDouble();
    captured = capturingLogger();
    channel = await startChannel(double, { logger: captured.logger });
  });
  afterEach(() => double.close());

  const fallbackWarnings = () => captured.warnings().filter((line) => /refused the topic/.test(String(line.msg)));

  it('sends a reply refused with "message thread not found" to the main chat, once, with a warning', async () => {
    double.refuseThread(CHAT, 42);
    const receipt = await channel.send(topic, 'the **answer**');
    const [refused, resent] = double.callsOf('sendMessage');
    expect(refused).toMatchObject({ failed: true, params: { message_thread_id: 42 } });
    expect(resent?.failed).toBe(false);
    expect(resent?.params).not.toHaveProperty('message_thread_id');
    const visible = double.visibleMessages(CHAT);
    expect(visible).toHaveLength(1);
    expect(visible[0]).toMatchObject({ text: 'the answer' });
    expect(visible[0]?.threadId).toBeUndefined();
    expect(receipt.messageIds).toEqual([String(visible[0]?.messageId)]);
    expect(fallbackWarnings()).toMatchObject([{ method: 'sendMessage', chatId: CHAT, threadId: 42, description: 'Bad Request: message thread not found' }]);
  });

  it('keeps a recorded delivery exactly-once: one id per part, nothing left in doubt', async () => {
    double.refuseThread(CHAT, 42, 'Bad Request: TOPIC_DELETED');
    const long = Array.from({ length: 3 }, (_, index) => `Part ${index}. ` + 'words '.repeat(700)).join('\n\n');
    const progress = recordingProgress();
    const receipt = await channel.send(topic, long, progress);
    const visible = double.visibleMessages(CHAT);
    expect(visible.length).toBeGreaterThan(1);
    expect(visible.every((message) => message.threadId === undefined)).toBe(true);
    expect(receipt.messageIds).toEqual(visible.map((message) => String(message.messageId)));
    expect(progress.reports.at(-1)).toEqual(receipt.messageIds);
    expect(progress.leftBehind()).toEqual({ delivered: receipt.messageIds });
  });

  it('sends a notice (a command answer) refused with TOPIC_CLOSED to the main chat', async () => {
    double.refuseThread(CHAT, 42, 'Bad Request: TOPIC_CLOSED');
    await channel.sendNotice(topic, 'Started a new conversation.');
    expect(double.visibleMessages(CHAT)).toMatchObject([{ text: 'Started a new conversation.' }]);
    expect(double.visibleMessages(CHAT)[0]?.threadId).toBeUndefined();
    expect(fallbackWarnings()).toMatchObject([{ chatId: CHAT, threadId: 42, description: 'Bad Request: TOPIC_CLOSED' }]);
  });

  it('sends an approval prompt with its buttons to the main chat', async () => {
    double.refuseThread(CHAT, 42);
    const messageId = await channel.sendApprovalPrompt!(topic, { approvalId: 'appr-1', toolName: 'write_file', argumentsPreview: '{}' });
    const visible = double.visibleMessages(CHAT);
    expect(visible).toHaveLength(1);
    expect(String(visible[0]?.messageId)).toBe(messageId);
    expect(visible[0]?.threadId).toBeUndefined();
    expect(visible[0]?.replyMarkup).toMatchObject({ inline_keyboard: [[{ text: 'Allow once' }], [{ text: 'Allow for this session' }], [{ text: 'Deny' }]] });
  });

  it('sends a file to the main chat', async () => {
    double.refuseThread(CHAT, 42);
    const receipt = await channel.sendFile(topic, { bytes: Buffer.from('report'), fileName: 'report.txt', mimeType: 'text/plain', kind: 'document', caption: 'the report' });
    expect(double.uploads).toHaveLength(1);
    expect(double.callsOf('sendDocument').map((call) => call.failed)).toEqual([true, false]);
    expect(receipt.messageIds).toEqual([String(double.uploads[0]?.messageId)]);
    expect(double.visibleMessages(CHAT)[0]?.threadId).toBeUndefined();
  });

  it('shows the live draft in the main chat and finishes the answer there', async () => {
    double.refuseThread(CHAT, 42);
    const live = channel.openLiveReply!(topic)!;
    live.update('Thinking about it');
    await waitFor(() => double.visibleMessages(CHAT).length === 1);
    const receipt = await live.finish('The full answer.');
    const visible = double.visibleMessages(CHAT);
    expect(visible).toMatchObject([{ text: 'The full answer.' }]);
    expect(visible[0]?.threadId).toBeUndefined();
    expect(receipt.messageIds).toEqual([String(visible[0]?.messageId)]);
  });

  it('shows typing in the main chat', async () => {
    double.refuseThread(CHAT, 42);
    const indicator = channel.startWorking(topic);
    await waitFor(() => double.callsOf('sendChatAction').length === 2);
    await indicator.stop();
    expect(double.callsOf('sendChatAction').map((call) => [call.failed, call.params.message_thread_id])).toEqual([
      [true, 42],
      [false, undefined],
    ]);
  });

  it('tells the topic-gone sink which topic Telegram refused (its scheduled tasks pause), without holding the answer up', async () => {
    const gone: ChatMembershipChange[] = [];
    channel.onTopicGone!(async (change) => {
      gone.push(change);
      return { kind: 'recorded' };
    });
    double.refuseThread(CHAT, 42, 'Bad Request: TOPIC_CLOSED');
    await channel.send(topic, 'closed topic');
    double.refuseThread(CHAT, 44);
    await channel.send({ ...topic, threadId: '44' }, 'deleted topic');
    await waitFor(() => gone.length === 2);
    expect(gone).toMatchObject([
      { channel: 'telegram', accountId: '123456789', chat: { chatId: String(CHAT), chatType: 'group', threadId: '42' }, change: 'removed', reason: 'topic closed' },
      { chat: { chatId: String(CHAT), chatType: 'group', threadId: '44' }, change: 'removed', reason: 'topic not found' },
    ]);
    expect(double.visibleMessages(CHAT).map((message) => message.text)).toEqual(['closed topic', 'deleted topic']);
  });

  it('leaves other topics of the chat alone', async () => {
    double.refuseThread(CHAT, 42);
    await channel.send({ ...topic, threadId: '43' }, 'in topic 43');
    expect(double.visibleMessages(CHAT)).toMatchObject([{ threadId: 43, text: 'in topic 43' }]);
    expect(fallbackWarnings()).toEqual([]);
  });
});
