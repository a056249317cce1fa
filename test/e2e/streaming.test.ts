import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FeishuDouble } from '../doubles/feishu-double.js';
import type { RecordedRequest } from '../doubles/http-double.js';
import { reply, type ModelReply } from '../doubles/model-script.js';
import type { SlackDouble } from '../doubles/slack-double.js';
import { parseTelegramHtml, type TelegramDouble } from '../doubles/telegram-double.js';
import { createE2eEnvironment, postFeishu, postSlack, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * Live-streamed replies on Telegram, Slack and Feishu through one built service (LLM_STREAM=true): the
 * model double streams an answer over about three seconds; the platform doubles record the draft being
 * sent, edited in place at a throttled pace, and settled into the final formatted answer.
 */
let environment: E2eEnvironment;
let telegram: TelegramDouble;
let slack: SlackDouble;
let feishu: FeishuDouble;
let service: ServiceProcess;

/**
 * The channels' pace is about one edit a second per chat (unthrottled, the turn would hand over a new text
 * every 250 ms). Measured where the doubles receive the calls, so with some room for a slow request.
 */
const MIN_EDIT_GAP_MS = 750;
const SENTENCES = ['first', 'second', 'third', 'fourth'].map((nth) => `This is the ${nth} sentence of an answer that grows while the model writes it.`).join(' ');
const STREAMED = `Streaming **works**: ${SENTENCES} Done & dusted <3.`;
/** 10 characters every 100 ms: about three seconds for the whole answer. */
const slowly = (text: string): ModelReply => reply.text(text, { chunkSize: 10, chunkDelayMs: 100 });
const EXPECTED = {
  telegram: `Streaming <b>works</b>: ${SENTENCES} Done &amp; dusted &lt;3.`,
  slack: `Streaming *works*: ${SENTENCES} Done &amp; dusted &lt;3.`,
  feishuCard: {
    schema: '2.0',
    config: { update_multi: true, width_mode: 'fill' },
    body: { elements: [{ tag: 'markdown', content: `Streaming **works**: ${SENTENCES} Done & dusted &#60;3.` }] },
  },
};
/** Silent after a preamble: the model says something, calls a tool, then decides to stay quiet. */
const preambleThenSilence = (): ModelReply[] => [
  reply.toolCall('list_directory', {}, { text: 'Let me look around first, this may take a moment.', chunkSize: 4, chunkDelayMs: 80 }),
  reply.text('NO_REPLY', { chunkSize: 2, chunkDelayMs: 150 }),
];

beforeAll(async () => {
  environment = await createE2eEnvironment({ slack: true, feishu: true });
  ({ telegram } = environment);
  slack = environment.slack!;
  feishu = environment.feishu!;
  service = await startServiceProcess(environment.env({ LLM_STREAM: 'true', ...environment.slackEnv(), ...environment.feishuEnv() }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

afterEach(() => {
  environment.openai.script.clear();
  environment.openai.script.respondWith((_request, text) => `You said: ${text}`);
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const callsMentioning = (marker: string) => environment.openai.modelCalls.filter((call) => JSON.stringify(call.body.messages).includes(marker));
const lastModelCallEnded = (marker: string) => waitFor(() => callsMentioning(marker).at(-1)?.endedAt, { what: 'the model stream to end', timeoutMs: 15_000 });

async function runsOf(keyPattern: string) {
  return environment.sql`SELECT r.status, r.silent FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.key LIKE ${keyPattern} ORDER BY r.started_at`;
}

interface Shown {
  at: number;
  /** What the message showed after this call (as sent: HTML, mrkdwn, card markdown). */
  text: string;
}

/**
 * The common checks of a streamed reply, given what the one message showed over time (its first send,
 * then every edit): progressive (the first draft well before the model finished, texts growing, each a
 * prefix of the final one), throttled (preview edits at least an interval apart), and settled into `final`.
 */
function expectStreamedInPlace(shown: Shown[], final: string, model: RecordedRequest, comparable: (text: string) => string): void {
  expect(shown.length).toBeGreaterThanOrEqual(3);
  expect(shown[0]!.at).toBeLessThan(model.endedAt! - 1_000);
  expect(shown.at(-1)!.text).toBe(final);
  const readable = shown.map((entry) => comparable(entry.text).replace(/\*/g, '').trimEnd());
  // each text grows on the one before (the final edit may repeat a last preview that already had it all)
  for (let index = 1; index < readable.length; index++) {
    if (index === readable.length - 1) expect(readable[index]!.length).toBeGreaterThanOrEqual(readable[index - 1]!.length);
    else expect(readable[index]!.length).toBeGreaterThan(readable[index - 1]!.length);
  }
  for (const text of readable) expect(readable.at(-1)!.startsWith(text)).toBe(true);
  // the final edit may follow the last preview at once; every preview before it waits its turn
  const previews = shown.slice(0, -1);
  for (let index = 1; index < previews.length; index++) expect(previews[index]!.at - previews[index - 1]!.at).toBeGreaterThanOrEqual(MIN_EDIT_GAP_MS);
  const streamMs = model.endedAt! - model.receivedAt;
  expect(previews.length).toBeLessThanOrEqual(Math.ceil(streamMs / 1_000) + 1);
}

const telegramHtmlText = (html: string) => {
  const parsed = parseTelegramHtml(html);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.text;
};
const unescapeMrkdwn = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

describe('live-streamed replies', () => {
  describe('Telegram', () => {
    const sent = (chatId: number) => telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);
    const edits = (chatId: number) => telegram.callsOf('editMessageText').filter((call) => call.params.chat_id === chatId && !call.failed);

    it('edits a draft in place, throttled, and the last edit is the final formatted answer', async () => {
      const chatId = 7101;
      environment.openai.script.push(slowly(STREAMED));
      expect((await postTelegramUpdate(service.url, telegram.makeUpdate.privateText(chatId, 'stream it on telegram'))).status).toBe(200);
      const model = await waitFor(async () => {
        await lastModelCallEnded('stream it on telegram');
        return telegram.visibleMessages(chatId).some((message) => message.raw === EXPECTED.telegram) ? callsMentioning('stream it on telegram').at(-1) : undefined;
      }, { what: 'the final answer', timeoutMs: 15_000 });
      await pause(500);

      const deleted = telegram.callsOf('deleteMessage').filter((call) => call.params.chat_id === chatId);
      expect(deleted, 'the draft is finished in place, not deleted and sent again').toHaveLength(0);
      expect(sent(chatId)).toHaveLength(1);
      const shown = [sent(chatId)[0]!, ...edits(chatId)].map((call) => ({ at: call.at, text: String(call.params.text) }));
      expect(edits(chatId).every((call) => call.params.parse_mode === 'HTML')).toBe(true);
      expectStreamedInPlace(shown, EXPECTED.telegram, model, telegramHtmlText);
      const visible = telegram.visibleMessages(chatId);
      expect(visible).toHaveLength(1);
      expect(visible[0]!.text).toBe(telegramHtmlText(EXPECTED.telegram));
    });

    it('leaves nothing behind when the answer turns out NO_REPLY, even after a draft was shown', async () => {
      const silentChat = 7102;
      environment.openai.script.push(reply.text('NO_REPLY', { chunkSize: 2, chunkDelayMs: 150 }));
      await postTelegramUpdate(service.url, telegram.makeUpdate.privateText(silentChat, 'say nothing on telegram'));
      await waitFor(async () => (await runsOf(`%:dm:${silentChat}`)).length === 1, { what: 'the silent run' });
      expect(await runsOf(`%:dm:${silentChat}`)).toEqual([{ status: 'completed', silent: true }]);
      expect(sent(silentChat)).toHaveLength(0);

      const draftChat = 7103;
      environment.openai.script.push(...preambleThenSilence());
      await postTelegramUpdate(service.url, telegram.makeUpdate.privateText(draftChat, 'look, then say nothing on telegram'));
      await waitFor(async () => (await runsOf(`%:dm:${draftChat}`)).length === 1, { what: 'the silent run' });
      expect(await runsOf(`%:dm:${draftChat}`)).toEqual([{ status: 'completed', silent: true }]);
      expect(sent(draftChat)).toHaveLength(1); // the preamble was shown as a draft…
      expect(String(sent(draftChat)[0]!.params.text)).toMatch(/^Let/);
      // the draft is removed as the turn winds down, right after its run is stored
      await waitFor(() => telegram.callsOf('deleteMessage').some((call) => call.params.chat_id === draftChat && !call.failed), { what: 'the draft removed' });
      expect(telegram.callsOf('deleteMessage').filter((call) => call.params.chat_id === draftChat && !call.failed)).toHaveLength(1);
      expect(telegram.visibleMessages(draftChat)).toEqual([]); // …and deleted
    });
  });

  describe('Slack', () => {
    const posted = (channel: string) => slack.callsOf('chat.postMessage').filter((call) => call.params.channel === channel && !call.failed);
    const updates = (channel: string) => slack.callsOf('chat.update').filter((call) => call.params.channel === channel && !call.failed);
    const visible = (channel: string) => [...slack.messages.values()].filter((message) => message.channel === channel && !message.deleted);
    const postEvent = (body: unknown) => postSlack(service.url, slack.signedRequest('/webhooks/slack/events', body));

    it('updates a placeholder in place (chat.update), throttled, and the last update is the final mrkdwn', async () => {
      environment.openai.script.push(slowly(STREAMED));
      expect((await postEvent(slack.makeEvent.dm('U0STREAM1', 'stream it on slack'))).status).toBe(200);
      const channel = 'D0STREAM1';
      const model = await waitFor(async () => {
        await lastModelCallEnded('stream it on slack');
        return visible(channel).some((message) => message.text === EXPECTED.slack) ? callsMentioning('stream it on slack').at(-1) : undefined;
      }, { what: 'the final answer', timeoutMs: 15_000 });
      await pause(500);

      const deleted = slack.callsOf('chat.delete').filter((call) => call.params.channel === channel);
      expect(deleted, 'the placeholder is finished in place, not deleted and posted again').toHaveLength(0);
      expect(posted(channel)).toHaveLength(1);
      const placeholderTs = visible(channel)[0]!.ts;
      expect(updates(channel).every((call) => call.params.ts === placeholderTs)).toBe(true);
      const shown = [posted(channel)[0]!, ...updates(channel)].map((call) => ({ at: call.at, text: String(call.params.text) }));
      expectStreamedInPlace(shown, EXPECTED.slack, model, unescapeMrkdwn);
      expect(visible(channel).map((message) => message.text)).toEqual([EXPECTED.slack]);
    });

    it('leaves nothing behind when the answer turns out NO_REPLY, even after a placeholder was shown', async () => {
      environment.openai.script.push(reply.text('NO_REPLY', { chunkSize: 2, chunkDelayMs: 150 }));
      await postEvent(slack.makeEvent.dm('U0SILENT1', 'say nothing on slack'));
      await waitFor(async () => (await runsOf('%:slack:%:dm:U0SILENT1')).length === 1, { what: 'the silent run' });
      expect(await runsOf('%:slack:%:dm:U0SILENT1')).toEqual([{ status: 'completed', silent: true }]);
      expect(posted('D0SILENT1')).toHaveLength(0);

      environment.openai.script.push(...preambleThenSilence());
      await postEvent(slack.makeEvent.dm('U0SILENT2', 'look, then say nothing on slack'));
      await waitFor(async () => (await runsOf('%:slack:%:dm:U0SILENT2')).length === 1, { what: 'the silent run' });
      expect(await runsOf('%:slack:%:dm:U0SILENT2')).toEqual([{ status: 'completed', silent: true }]);
      expect(posted('D0SILENT2')).toHaveLength(1);
      expect(String(posted('D0SILENT2')[0]!.params.text)).toMatch(/^Let/);
      // the placeholder is removed as the turn winds down, right after its run is stored
      await waitFor(() => slack.callsOf('chat.delete').some((call) => call.params.channel === 'D0SILENT2' && !call.failed), { what: 'the placeholder removed' });
      expect(slack.callsOf('chat.delete').filter((call) => call.params.channel === 'D0SILENT2' && !call.failed)).toHaveLength(1);
      expect(visible('D0SILENT2')).toEqual([]);
    });
  });

  describe('Feishu', () => {
    const replies = (messageId: string) => feishu.callsOf(`POST /open-apis/im/v1/messages/${messageId}/reply`).filter((call) => call.code === 0);
    const patches = (cardId: string) => feishu.callsOf(`PATCH /open-apis/im/v1/messages/${cardId}`).filter((call) => call.code === 0);
    const visibleReplies = (messageId: string) => [...feishu.messages.values()].filter((message) => message.parentId === messageId && !message.deleted);
    const cardMarkdown = (content: string) => (JSON.parse(content) as typeof EXPECTED.feishuCard).body.elements.map((element) => element.content).join('\n');

    it('patches a card in place, throttled, and the last patch is the final card', async () => {
      environment.openai.script.push(slowly(STREAMED));
      const event = feishu.events.p2pText('stream it on feishu', { chatId: 'oc_stream_1', userOpenId: 'ou_stream_1' });
      const messageId = event.event.message.message_id;
      expect((await postFeishu(service.url, feishu.delivery(event))).status).toBe(200);
      const model = await lastModelCallEnded('stream it on feishu').then(() => callsMentioning('stream it on feishu').at(-1)!);
      await waitFor(async () => (await runsOf('%:feishu:%:dm:ou_stream_1')).length === 1, { what: 'the run stored' });
      await pause(500);

      const deleted = feishu.callsOf(/^DELETE \/open-apis\/im\/v1\/messages\/om_bot_\d+$/).filter((call) => call.at >= model.receivedAt);
      expect(deleted, 'the card is finished in place, not deleted and sent again').toHaveLength(0);
      expect(replies(messageId)).toHaveLength(1);
      const [card] = visibleReplies(messageId);
      expect(card!.msgType).toBe('interactive');
      const shown = [replies(messageId)[0]!, ...patches(card!.messageId)].map((call) => ({ at: call.at, text: cardMarkdown(String(call.body.content)) }));
      expectStreamedInPlace(shown, EXPECTED.feishuCard.body.elements[0]!.content, model, (text) => text.replace(/&#60;/g, '<'));
      expect(JSON.parse(String(patches(card!.messageId).at(-1)!.body.content))).toEqual(EXPECTED.feishuCard);
      expect(visibleReplies(messageId)).toHaveLength(1);
    });

    it('leaves nothing behind when the answer turns out NO_REPLY, even after a card was shown', async () => {
      environment.openai.script.push(reply.text('NO_REPLY', { chunkSize: 2, chunkDelayMs: 150 }));
      const silent = feishu.events.p2pText('say nothing on feishu', { chatId: 'oc_silent_1', userOpenId: 'ou_silent_1' });
      await postFeishu(service.url, feishu.delivery(silent));
      await waitFor(async () => (await runsOf('%:feishu:%:dm:ou_silent_1')).length === 1, { what: 'the silent run' });
      expect(await runsOf('%:feishu:%:dm:ou_silent_1')).toEqual([{ status: 'completed', silent: true }]);
      expect(replies(silent.event.message.message_id)).toHaveLength(0);

      environment.openai.script.push(...preambleThenSilence());
      const drafted = feishu.events.p2pText('look, then say nothing on feishu', { chatId: 'oc_silent_2', userOpenId: 'ou_silent_2' });
      await postFeishu(service.url, feishu.delivery(drafted));
      await waitFor(async () => (await runsOf('%:feishu:%:dm:ou_silent_2')).length === 1, { what: 'the silent run' });
      expect(await runsOf('%:feishu:%:dm:ou_silent_2')).toEqual([{ status: 'completed', silent: true }]);
      const [draft] = replies(drafted.event.message.message_id);
      expect(draft).toBeDefined();
      expect(JSON.parse(String(draft!.body.content)).body.elements[0].content).toMatch(/^Let/);
      const cardId = [...feishu.messages.values()].find((message) => message.parentId === drafted.event.message.message_id)!.messageId;
      // the card is removed as the turn winds down, right after its run is stored
      await waitFor(() => feishu.callsOf(`DELETE /open-apis/im/v1/messages/${cardId}`).some((call) => call.code === 0), { what: 'the card removed' });
      expect(feishu.callsOf(`DELETE /open-apis/im/v1/messages/${cardId}`).filter((call) => call.code === 0)).toHaveLength(1);
      expect(visibleReplies(drafted.event.message.message_id)).toEqual([]);
    });
  });

  it('does not stream in group chats by default: one message each, no edits', async () => {
    environment.openai.script.respondWith(() => slowly(STREAMED));
    const telegramGroup = -1007100;
    const slackMention = slack.makeEvent.mention('C0STREAM9', 'U0STREAM9', 'stream in a group?');
    const feishuMention = feishu.events.groupMention('stream in a group?', { chatId: 'oc_stream_group' });
    await Promise.all([
      postTelegramUpdate(service.url, telegram.makeUpdate.mention(telegramGroup, 7109, 'stream in a group?')),
      postSlack(service.url, slack.signedRequest('/webhooks/slack/events', slackMention)),
      postFeishu(service.url, feishu.delivery(feishuMention)),
    ]);
    await waitFor(
      async () => (await runsOf('%stream_group%')).length + (await runsOf(`%:group:${telegramGroup}%`)).length + (await runsOf('%:group:C0STREAM9%')).length === 3,
      { what: 'the three group runs', timeoutMs: 20_000 },
    );
    await pause(300);
    expect(telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === telegramGroup && !call.failed)).toHaveLength(1);
    expect(telegram.callsOf('editMessageText').filter((call) => call.params.chat_id === telegramGroup)).toHaveLength(0);
    expect(slack.callsOf('chat.postMessage').filter((call) => call.params.channel === 'C0STREAM9' && !call.failed)).toHaveLength(1);
    expect(slack.callsOf('chat.update').filter((call) => call.params.channel === 'C0STREAM9')).toHaveLength(0);
    const feishuReplies = feishu.callsOf(`POST /open-apis/im/v1/messages/${feishuMention.event.message.message_id}/reply`);
    expect(feishuReplies).toHaveLength(1);
    expect(feishu.callsOf(/^PATCH /).filter((call) => call.at >= feishuReplies[0]!.at)).toHaveLength(0);
  });
});
