import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderAnswerChunks } from '../../../channels/telegram/outbound.js';
import { PROBE_LIMITS, PROBE_WINDOW } from '../../../channels/telegram/sent-probe.js';
import type { Channel, ConversationRef } from '../../../src/core/index.js';
import { startTelegramDouble, type TelegramDouble } from '../../doubles/telegram-double.js';
import { dyingAt, recordingProgress } from '../../support/recording-progress.js';
import { startChannel } from './channel-fixture.js';

function longAnswer(): string {
  return Array.from({ length: 12 }, (_, index) => [`### Part ${index}`, `Some **important** text about part ${index}. `.repeat(30)].join('\n\n')).join('\n\n');
}

// A takeover's view: the parts an earlier attempt recorded, and the one it died sending (Telegram has no
// idempotency key: the part in doubt is looked for among the message ids after the last one known).
describe('telegram resumable delivery', () => {
  let double: TelegramDouble;
  let channel: Channel;
  const markdown = longAnswer();
  const chunks = renderAnswerChunks(markdown);

  beforeEach(async () => {
    double = await startTelegramDouble();
    channel = await startChannel(double);
  });
  afterEach(() => double.close());

  /** A DM whose question the double numbered (private chats share the bot's message counter). */
  function dmAfterQuestion(userId: number): ConversationRef {
    const question = double.makeUpdate.privateText(userId, 'tell me everything');
    return { channel: 'telegram', accountId: String(double.botId), chatId: String(userId), chatType: 'dm', messageId: String(question.message!.message_id) };
  }

  it('a takeover finds the part the dead attempt sent but never recorded, and sends only the rest', async () => {
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    const dm = dmAfterQuestion(4101);
    const first = dyingAt(recordingProgress(), 2);
    await expect(channel.send(dm, markdown, first)).rejects.toThrow('worker lost');
    const left = first.leftBehind();
    expect(left).toMatchObject({ delivered: [expect.any(String)], inDoubt: { part: 1, hint: { after: Number(left.delivered[0]) } } });
    // the user writes again meanwhile: the probe skips a message that is not the bot's
    double.makeUpdate.privateText(4101, 'hello?');

    const retry = recordingProgress({ ...left });
    const receipt = await channel.send(dm, markdown, retry);

    expect(retry.resolutions).toEqual(['found']);
    expect(double.callsOf('sendMessage').map((call) => call.params.text)).toEqual(chunks);
    expect(double.visibleMessages(4101).map((message) => String(message.messageId))).toEqual(receipt.messageIds);
    // the probe's button is gone again
    expect(double.visibleMessages(4101).every((message) => message.replyMarkup === undefined)).toBe(true);
  });

  it('finds the part past messages of other private chats (one counter for all of them)', async () => {
    const dm = dmAfterQuestion(4201);
    // other chats' answers take ids meanwhile: more than the probe window past the question
    for (let other = 0; other < PROBE_WINDOW + 5; other += 1) await channel.send({ ...dm, chatId: String(5000 + other), messageId: '0' }, `other chat ${other}`);
    const first = dyingAt(recordingProgress(), 1);
    await expect(channel.send(dm, markdown, first)).rejects.toThrow('worker lost');
    const retry = recordingProgress({ ...first.leftBehind() });
    await channel.send(dm, markdown, retry);
    expect(retry.resolutions).toEqual(['found']);
    expect(double.visibleMessages(4201)).toHaveLength(chunks.length);
  });

  it('finds a part that took an id far past its intent\'s bounds (a busy bot), up to the ids the resuming process has seen', async () => {
    const dm = dmAfterQuestion(4251);
    const bound = Number(dm.messageId);
    // the dead worker's answer went out after many other chats' messages took ids: far more than the window
    for (let other = 0; other < PROBE_WINDOW * 3; other += 1) await channel.send({ ...dm, chatId: String(6000 + other), messageId: '0' }, `busy ${other}`);
    await channel.send(dm, 'The short answer.', recordingProgress());
    const retry = recordingProgress({ delivered: [], inDoubt: { part: 0, hint: { after: bound, afterAny: bound }, at: Date.now() } });
    await channel.send(dm, 'The short answer.', retry);
    expect(retry.resolutions).toEqual(['found']);
    expect(double.visibleMessages(4251).map((message) => message.text)).toEqual(['The short answer.']);
  });

  it('searches from the tighter of the two bounds: a question asked more than a search\'s reach ago does not hide the part', async () => {
    const dm = dmAfterQuestion(4271);
    const question = Number(dm.messageId);
    // the turn waited (a takeover, a Redis restart) while the bot's other private chats took 1,500 ids
    for (let other = 0; other < 1_500; other += 1) double.makeUpdate.privateText(8000 + (other % 50), 'meanwhile');
    const intentBound = question + 1_500;
    await channel.send(dm, 'The late answer.', recordingProgress());
    const retry = recordingProgress({ delivered: [], inDoubt: { part: 0, hint: { after: question, afterAny: intentBound }, at: Date.now() } });
    await channel.send(dm, 'The late answer.', retry);
    expect(retry.resolutions).toEqual(['found']);
    expect(double.visibleMessages(4271).map((message) => message.text)).toEqual(['The late answer.']);
  });

  /** A DM whose answer took its id after `busy` ids of other private chats; the retry's intent bound is before them. */
  async function answeredAfterBusyCounter(userId: number, busy: number, text: string) {
    const dm = dmAfterQuestion(userId);
    const bound = Number(dm.messageId);
    for (let other = 0; other < busy; other += 1) double.makeUpdate.privateText(8100 + (other % 50), 'meanwhile');
    await channel.send(dm, text, recordingProgress());
    const retry = recordingProgress({ delivered: [], inDoubt: { part: 0, hint: { after: bound, afterAny: bound }, at: Date.now() } });
    await channel.send(dm, text, retry);
    return { retry, texts: double.visibleMessages(userId).map((message) => message.text) };
  }

  it('searches as far as the API answers within its time: a part 1,100 ids past its bound is found', async () => {
    const { retry, texts } = await answeredAfterBusyCounter(4281, 1_100, 'The slow answer.');
    expect(retry.resolutions).toEqual(['found']);
    expect(texts).toEqual(['The slow answer.']);
  });

  describe('a part beyond the search is sent again, counted as a possible duplicate (unverified), not as never sent', () => {
    const limits = { ...PROBE_LIMITS };
    afterEach(() => Object.assign(PROBE_LIMITS, limits));

    it('past the most ids one search probes', async () => {
      PROBE_LIMITS.maxIds = 200;
      const { retry, texts } = await answeredAfterBusyCounter(4282, 300, 'The slower answer.');
      expect(retry.resolutions).toEqual(['unverified_resend']);
      expect(texts).toEqual(['The slower answer.', 'The slower answer.']);
    });

    it('past the time one search may take', async () => {
      PROBE_LIMITS.budgetMs = 0;
      const { retry, texts } = await answeredAfterBusyCounter(4283, 10, 'The late answer.');
      expect(retry.resolutions).toEqual(['unverified_resend']);
      expect(texts).toEqual(['The late answer.', 'The late answer.']);
    });
  });

  it('a part in doubt that never reached Telegram is sent, once', async () => {
    const dm = dmAfterQuestion(4301);
    const progress = recordingProgress({ delivered: [], inDoubt: { part: 0, hint: { after: Number(dm.messageId) }, at: Date.now() } });
    await channel.send(dm, markdown, progress);
    expect(progress.resolutions).toEqual(['not_sent']);
    expect(double.visibleMessages(4301)).toHaveLength(chunks.length);
  });

  it('a notice in doubt is found by its plain text; a photo by its caption', async () => {
    const dm = dmAfterQuestion(4401);
    // sent, and the worker died before recording it: a takeover finds only the intent
    const notice = recordingProgress();
    await channel.sendNotice(dm, 'Sorry, <b>not</b> today.', notice);
    const retry = recordingProgress({ delivered: [], inDoubt: { part: 0, hint: notice.intents[0]!.hint, at: Date.now() } });
    const receipt = await channel.sendNotice(dm, 'Sorry, <b>not</b> today.', retry);
    expect(retry.resolutions).toEqual(['found']);
    expect(double.visibleMessages(4401).map((message) => message.text)).toEqual(['Sorry, <b>not</b> today.']);
    expect(receipt.messageIds).toEqual([String(double.visibleMessages(4401)[0]!.messageId)]);

    const photo = { bytes: Buffer.from('png'), fileName: 'chart.png', mimeType: 'image/png', kind: 'photo' as const, caption: 'The chart' };
    const sent = recordingProgress();
    await channel.sendFile(dm, photo, sent);
    const again = recordingProgress({ delivered: [], inDoubt: { part: 0, hint: sent.intents[0]!.hint, at: Date.now() } });
    await channel.sendFile(dm, photo, again);
    expect(again.resolutions).toEqual(['found']);
    expect(double.uploads.filter((upload) => upload.chatId === 4401)).toHaveLength(1);
  });

  it('an approval request in doubt is found with its buttons put back as they were', async () => {
    const dm = dmAfterQuestion(4501);
    const prompt = { approvalId: 'appr-1', toolName: 'write_file', argumentsPreview: '{"path":"notes.txt"}' };
    const sent = recordingProgress();
    await channel.sendApprovalPrompt!(dm, prompt, sent);
    const [before] = double.visibleMessages(4501);
    const buttons = JSON.parse(JSON.stringify(before!.replyMarkup)) as unknown;
    expect(buttons).toMatchObject({ inline_keyboard: [[{ text: 'Allow once' }], [{ text: 'Allow for this session' }], [{ text: 'Deny' }]] });
    const again = recordingProgress({ delivered: [], inDoubt: { part: 0, hint: sent.intents[0]!.hint, at: Date.now() } });
    const messageId = await channel.sendApprovalPrompt!(dm, prompt, again);
    expect(again.resolutions).toEqual(['found']);
    expect(messageId).toBe(String(before!.messageId));
    expect(double.visibleMessages(4501)).toHaveLength(1);
    expect(double.visibleMessages(4501)[0]!.replyMarkup).toEqual(buttons);
  });
});
