import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROBE_LIMITS, PROBE_PARALLEL, PROBE_ROUNDS_AT_ONCE } from '../../../channels/telegram/sent-probe.js';
import type { Channel, ConversationRef } from '../../../src/core/index.js';
import { startTelegramDouble, type TelegramDouble } from '../../doubles/telegram-double.js';
import { recordingProgress } from '../../support/recording-progress.js';
import { startChannel } from './channel-fixture.js';

// A dead worker leaves many parts in doubt at once (one per turn it held); their searches for them start together.
describe('telegram: the searches for parts in doubt share the API in turns', () => {
  let double: TelegramDouble;
  let channel: Channel;
  const limits = { ...PROBE_LIMITS };

  beforeEach(async () => {
    double = await startTelegramDouble();
    channel = await startChannel(double);
  });
  afterEach(async () => {
    Object.assign(PROBE_LIMITS, limits);
    await double.close();
  });

  /** A DM whose answer was sent `busy` ids past the bound its intent recorded; the retry must search those ids. */
  async function partInDoubt(userId: number, busy: number) {
    const question = double.makeUpdate.privateText(userId, 'question');
    const dm: ConversationRef = { channel: 'telegram', accountId: String(double.botId), chatId: String(userId), chatType: 'dm', messageId: String(question.message!.message_id) };
    const bound = question.message!.message_id;
    for (let other = 0; other < busy; other += 1) double.makeUpdate.privateText(9100 + (other % 40), 'meanwhile');
    const text = `The answer for ${userId}.`;
    await channel.send(dm, text, recordingProgress());
    return { dm, text, userId, retry: recordingProgress({ delivered: [], inDoubt: { part: 0, hint: { after: bound, afterAny: bound }, at: Date.now() } }) };
  }

  /** The most probe calls the double had open at once. */
  function peakProbesInFlight(): number {
    const probes = double.callsOf('editMessageReplyMarkup');
    const edges = probes.flatMap((call) => [
      { at: call.at, step: 1 },
      { at: call.answeredAt ?? Number.POSITIVE_INFINITY, step: -1 },
    ]);
    edges.sort((a, b) => a.at - b.at || a.step - b.step);
    let open = 0;
    let peak = 0;
    for (const edge of edges) peak = Math.max(peak, (open += edge.step));
    return peak;
  }

  async function settleAll(parts: Array<Awaited<ReturnType<typeof partInDoubt>>>) {
    await Promise.all(parts.map((part) => channel.send(part.dm, part.text, part.retry)));
    return parts.map((part) => ({ resolutions: part.retry.resolutions, texts: double.visibleMessages(part.userId).map((message) => message.text) }));
  }

  it('never more probes in flight than a few rounds\' worth, however many searches run', async () => {
    const parts = [];
    for (let index = 0; index < 12; index += 1) parts.push(await partInDoubt(9301 + index, 30));
    double.stallAfterCommit('editMessageReplyMarkup', 15, 10_000);
    const settled = await settleAll(parts);
    for (const [index, part] of settled.entries()) expect(part).toEqual({ resolutions: ['found'], texts: [parts[index]!.text] });
    expect(double.callsOf('editMessageReplyMarkup').length).toBeGreaterThan(12 * PROBE_PARALLEL);
    expect(peakProbesInFlight()).toBeLessThanOrEqual(PROBE_ROUNDS_AT_ONCE * PROBE_PARALLEL);
  });

  it('a search waiting behind the others is not cut short: its budget counts only its own rounds', async () => {
    double.stallAfterCommit('editMessageReplyMarkup', 15, 10_000);
    // how long one search takes alone, on this machine now
    const alone = await partInDoubt(9401, 30);
    const began = Date.now();
    expect((await settleAll([alone]))[0]!.resolutions).toEqual(['found']);
    const oneSearchMs = Date.now() - began;

    const parts = [];
    for (let index = 0; index < 20; index += 1) parts.push(await partInDoubt(9411 + index, 30));
    // twenty searches, a few rounds at a time, take about five to twenty times one search's time: the later ones
    // wait far past this budget, and the rounds of all at once would each be that much slower
    PROBE_LIMITS.budgetMs = oneSearchMs * 6;
    const settled = await settleAll(parts);
    for (const [index, part] of settled.entries()) expect(part).toEqual({ resolutions: ['found'], texts: [parts[index]!.text] });
  });
});
