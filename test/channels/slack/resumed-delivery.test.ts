import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from '../../../channels/slack/format.js';
import { createOutbound, type SlackOutbound } from '../../../channels/slack/outbound.js';
import { splitMrkdwn } from '../../../channels/slack/split.js';
import { createThreadMemory } from '../../../channels/slack/thread-memory.js';
import { createWebClients } from '../../../channels/slack/web-clients.js';
import type { ConversationRef, DeliveryProgress } from '../../../src/core/index.js';
import { startSlackDouble, type SlackDouble } from '../../doubles/slack-double.js';
import { memoryState, silentLogger } from './channel-fixture.js';

const TEAM = 'T0TEAM01';
const thread: ConversationRef = { channel: 'slack', accountId: TEAM, chatId: 'C0GENERAL', chatType: 'group', threadId: '1700000100.000200', messageId: '1700000100.000200' };

function longAnswer(): string {
  return Array.from({ length: 30 }, (_, index) =>
    [`### Part ${index}`, `Some **important** text about part ${index}, with a [link](https://example.com/${index}). `.repeat(4), '```js\n' + `console.log(${index});\n`.repeat(10) + '```'].join('\n\n'),
  ).join('\n\n');
}

/** A progress that records every report, starting from what an earlier attempt delivered. */
function recordingProgress(delivered: string[] = []): DeliveryProgress & { reports: string[][] } {
  const reports: string[][] = [];
  return {
    delivered,
    reports,
    async onDelivered(messageIds) {
      reports.push(messageIds);
    },
  };
}

// `send(to, markdown, progress)` of the Slack outbound (the channel's `send` hands `progress` on to it)
describe('slack resumable delivery', () => {
  let double: SlackDouble;
  let outbound: SlackOutbound;
  const markdown = longAnswer();
  const chunks = splitMrkdwn(markdownToMrkdwn(markdown));

  beforeEach(async () => {
    double = await startSlackDouble();
    const clients = createWebClients({ botToken: double.botToken, signingSecret: double.signingSecret, appToken: undefined, apiUrl: double.apiUrl }, silentLogger);
    outbound = createOutbound(clients, createThreadMemory(memoryState(), TEAM, silentLogger));
  });
  afterEach(() => double.close());

  it('reports each chunk as soon as it is posted, with the growing list of ids', async () => {
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    const progress = recordingProgress();
    const receipt = await outbound.send(thread, markdown, progress);
    expect(receipt.messageIds).toHaveLength(chunks.length);
    expect(progress.reports).toEqual(chunks.map((_, index) => receipt.messageIds.slice(0, index + 1)));
  });

  it('a retried delivery posts only the chunks an earlier attempt did not deliver', async () => {
    // the first attempt dies right after its first chunk was posted and reported
    const first = recordingProgress();
    first.onDelivered = async (messageIds) => {
      first.reports.push(messageIds);
      throw new Error('worker lost');
    };
    await expect(outbound.send(thread, markdown, first)).rejects.toThrow('worker lost');
    expect(first.reports).toHaveLength(1);
    const delivered = first.reports[0]!;

    const retry = recordingProgress(delivered);
    const receipt = await outbound.send(thread, markdown, retry);

    const posts = double.callsOf('chat.postMessage');
    expect(posts.map((call) => call.params.text)).toEqual(chunks);
    expect(posts.every((call) => call.params.thread_ts === thread.threadId && !call.failed)).toBe(true);
    expect(receipt.messageIds).toHaveLength(chunks.length);
    expect(receipt.messageIds.slice(0, 1)).toEqual(delivered);
    expect(retry.reports).toEqual(chunks.slice(1).map((_, index) => receipt.messageIds.slice(0, index + 2)));
    expect(receipt.messageIds.map((ts) => double.messages.get(`${thread.chatId}:${ts}`)?.text)).toEqual(chunks);
  });

  it('posts nothing when every chunk was delivered already', async () => {
    const delivered = chunks.map((_, index) => `1700000200.00000${index}`);
    const progress = recordingProgress(delivered);
    expect(await outbound.send(thread, markdown, progress)).toEqual({ messageIds: delivered });
    expect(double.callsOf('chat.postMessage')).toHaveLength(0);
    expect(progress.reports).toHaveLength(0);
  });
});
