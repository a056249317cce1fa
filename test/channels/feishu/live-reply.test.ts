import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderAnswer, renderCards } from '../../../channels/feishu/format.js';
import type { Channel, ConversationRef, LiveReply } from '../../../src/core/index.js';
import { startFeishuDouble, type FeishuDouble } from '../../doubles/feishu-double.js';
import { startChannel, waitFor } from './channel-fixture.js';

const INTERVAL_MS = 200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('feishu live replies', () => {
  let double: FeishuDouble;
  let channel: Channel;
  let to: ConversationRef;

  beforeEach(async () => {
    double = await startFeishuDouble();
    channel = await startChannel(double, { liveEditIntervalMs: INTERVAL_MS });
    to = { channel: 'feishu', accountId: double.appId, chatId: 'oc_p2p_chat', chatType: 'dm', messageId: 'om_question' };
  });
  afterEach(() => double.close());

  function open(target: ConversationRef = to): LiveReply {
    const live = channel.openLiveReply?.(target);
    if (live === undefined) throw new Error('no live reply');
    return live;
  }

  /** Card replies and patches, in order: what the reader saw change. */
  const edits = () => double.calls.filter((call) => (call.method === 'POST' && call.path.endsWith('/reply')) || call.method === 'PATCH');

  it('sends a card at the first update, patches it at most once per interval with the latest text, and settles on the final answer', async () => {
    const live = open();
    const final = 'Here is the plan:\n\n1. read\n2. write\n\n```ts\nconst done = true;\n```';
    let soFar = '';
    for (const word of 'Here is the plan, one word at a time, streaming into a card that grows while we wait'.split(' ')) {
      soFar += `${word} `;
      live.update(soFar);
      await sleep(60);
    }
    const receipt = await live.finish(final);

    const calls = edits();
    expect(calls[0]?.method).toBe('POST');
    expect(calls[0]?.path).toBe('/open-apis/im/v1/messages/om_question/reply');
    expect(calls[0]?.body.msg_type).toBe('interactive');
    const previews = calls.slice(1, -1);
    expect(previews.length).toBeGreaterThanOrEqual(2);
    expect(calls.length).toBeLessThanOrEqual(Math.ceil((17 * 60) / INTERVAL_MS) + 3);
    for (let index = 1; index < calls.length - 1; index += 1) {
      // paced where the channel sends; arrivals at the double jitter under load, the count bound above holds the rate
      expect((calls[index]?.at ?? 0) - (calls[index - 1]?.at ?? 0)).toBeGreaterThanOrEqual(INTERVAL_MS * 0.75);
    }
    const shownTexts = calls.slice(0, -1).map((call) => JSON.parse(call.body.content).body.elements[0].content as string);
    shownTexts.forEach((text, index) => index > 0 && expect(text.length).toBeGreaterThan((shownTexts[index - 1] ?? '').length));

    const expected = renderCards(final)[0]?.content;
    expect(calls.at(-1)?.method).toBe('PATCH');
    expect(calls.at(-1)?.body.content).toBe(expected);
    expect(double.messages.get('om_bot_1')?.content).toEqual(JSON.parse(expected ?? ''));
    expect(receipt).toEqual({ messageIds: ['om_bot_1'] });
    expect(double.messages.size).toBe(1);
  });

  it('shows a status line in the card while tools run; the final card has only the answer', async () => {
    const live = open();
    live.status!('Searching the web…');
    await waitFor(() => edits().length === 1);
    const cardText = (index: number) => JSON.parse(edits()[index]!.body.content).body.elements.map((element: { content: string }) => element.content).join('\n');
    expect(cardText(0)).toBe('*Searching the web…*');
    live.status!(undefined);
    live.update('Found it');
    await waitFor(() => edits().length === 2);
    expect(cardText(1)).toBe('Found it');
    await live.finish('Found it: **42**.');
    expect(edits().at(-1)?.body.content).toBe(renderCards('Found it: **42**.')[0]?.content);
    expect(double.messages.size).toBe(1);
  });

  it('sends the rest of a long final answer as further replies', async () => {
    const live = open();
    live.update('Starting…');
    await waitFor(() => double.messages.size === 1);
    const final = Array.from({ length: 30 }, (_, index) => `Paragraph ${index}. ${'Words words words. '.repeat(15)}`).join('\n\n');
    const receipt = await live.finish(final);
    const cards = renderCards(final);
    expect(cards.length).toBeGreaterThan(1);
    expect(receipt.messageIds).toHaveLength(cards.length);
    expect(receipt.messageIds.map((id) => JSON.stringify(double.messages.get(id)?.content))).toEqual(cards.map((card) => card.content));
    expect(double.callsOf('/reply').every((call) => call.path === '/open-apis/im/v1/messages/om_question/reply')).toBe(true);
  });

  it('deletes the card on discard (a stopped or silent turn leaves nothing behind)', async () => {
    const live = open();
    live.update('Half a thought');
    await waitFor(() => double.messages.size === 1);
    live.update('Half a thought that will');
    await live.discard();
    expect(double.messages.get('om_bot_1')?.deleted).toBe(true);
    expect(double.callsOf('DELETE /open-apis/im/v1/messages/om_bot_1')).toHaveLength(1);
    live.update('too late');
    await sleep(INTERVAL_MS + 50);
    expect(edits().length).toBeLessThanOrEqual(2);
  });

  it('sends a normal answer when finished before anything was shown', async () => {
    const live = open();
    const receipt = await live.finish('Short **answer**');
    expect(double.callsOf('/reply').map((call) => ({ msgType: call.body.msg_type, content: call.body.content }))).toEqual(renderAnswer('Short **answer**'));
    expect(receipt.messageIds).toEqual(['om_bot_1']);
  });

  it('removes the card and sends the answer normally when the final edit fails', async () => {
    const live = open();
    live.update('Draft');
    await waitFor(() => double.messages.size === 1);
    double.failNext(/^PATCH /, { status: 400, code: 230001, msg: 'invalid card' });
    const receipt = await live.finish('Final answer');
    expect(double.messages.get('om_bot_1')?.deleted).toBe(true);
    expect(receipt.messageIds).toEqual(['om_bot_2']);
    expect(double.messages.get('om_bot_2')?.msgType).toBe('post');
  });

  it('waits out a rate-limited edit instead of losing the final answer', async () => {
    const live = open();
    live.update('Draft');
    await waitFor(() => double.messages.size === 1);
    double.failNext(/^PATCH /, { status: 429, code: 99991400, resetSeconds: 1 });
    await live.finish('The final answer');
    expect(double.callsOf(/^PATCH /).map((call) => call.status)).toEqual([429, 200]);
    expect(JSON.stringify(double.messages.get('om_bot_1')?.content)).toBe(renderCards('The final answer')[0]?.content);
  });

  it('streams in DMs only by default', async () => {
    expect(channel.openLiveReply?.({ ...to, chatType: 'group', chatId: 'oc_group_chat' })).toBeUndefined();
    const everywhere = await startChannel(double, { liveReplies: 'all' });
    expect(everywhere.openLiveReply?.({ ...to, chatType: 'group', chatId: 'oc_group_chat' })).toBeDefined();
    const nowhere = await startChannel(double, { liveReplies: 'off' });
    expect(nowhere.openLiveReply?.(to)).toBeUndefined();
  });
});
