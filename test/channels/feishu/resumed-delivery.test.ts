import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFeishuClient } from '../../../channels/feishu/client.js';
import { renderAnswer } from '../../../channels/feishu/format.js';
import { createHttpInstance } from '../../../channels/feishu/http-instance.js';
import { createChannelMemory } from '../../../channels/feishu/inbound-pipeline.js';
import { createMessagesApi } from '../../../channels/feishu/messages-api.js';
import { createOutbound, type FeishuOutbound } from '../../../channels/feishu/outbound.js';
import type { ConversationRef, DeliveryProgress } from '../../../src/core/index.js';
import { startFeishuDouble, type FeishuDouble } from '../../doubles/feishu-double.js';
import { memoryState, silentLogger } from './channel-fixture.js';

function longAnswer(): string {
  return Array.from({ length: 40 }, (_, index) => `## Part ${index}\n\n${`Some text about part ${index}. `.repeat(12)}\n\n\`\`\`python\nprint(${index})\n\`\`\``).join('\n\n');
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

// `send(to, markdown, progress)` of the Feishu outbound (the channel's `send` hands `progress` on to it)
describe('feishu resumable delivery', () => {
  let double: FeishuDouble;
  let outbound: FeishuOutbound;
  let to: ConversationRef;
  const markdown = longAnswer();
  const messages = renderAnswer(markdown);

  beforeEach(async () => {
    double = await startFeishuDouble();
    const config = { appId: double.appId, appSecret: double.appSecret, verificationToken: double.verificationToken, encryptKey: double.encryptKey, domain: double.domain, mode: 'webhook' as const };
    const api = createMessagesApi(createFeishuClient(config, createHttpInstance(), silentLogger), silentLogger);
    outbound = createOutbound(api, createChannelMemory(memoryState(), double.appId, silentLogger));
    to = { channel: 'feishu', accountId: double.appId, chatId: 'oc_group_chat', chatType: 'group', messageId: 'om_group_q' };
  });
  afterEach(() => double.close());

  it('reports each message as soon as it is sent, with the growing list of ids', async () => {
    expect(messages.length).toBeGreaterThanOrEqual(3);
    const progress = recordingProgress();
    const receipt = await outbound.send(to, markdown, progress);
    expect(receipt.messageIds).toHaveLength(messages.length);
    expect(progress.reports).toEqual(messages.map((_, index) => receipt.messageIds.slice(0, index + 1)));
  });

  it('a retried delivery sends only the messages an earlier attempt did not deliver', async () => {
    // the first attempt dies right after its first message was sent and reported
    const first = recordingProgress();
    first.onDelivered = async (messageIds) => {
      first.reports.push(messageIds);
      throw new Error('worker lost');
    };
    await expect(outbound.send(to, markdown, first)).rejects.toThrow('worker lost');
    expect(first.reports).toHaveLength(1);
    const delivered = first.reports[0]!;

    const retry = recordingProgress(delivered);
    const receipt = await outbound.send(to, markdown, retry);

    const replies = double.callsOf('/reply');
    expect(replies).toHaveLength(messages.length);
    expect(replies.every((call) => call.path === '/open-apis/im/v1/messages/om_group_q/reply' && call.code === 0)).toBe(true);
    expect(replies.map((call) => call.body.content)).toEqual(messages.map((message) => message.content));
    expect(receipt.messageIds).toHaveLength(messages.length);
    expect(receipt.messageIds.slice(0, 1)).toEqual(delivered);
    expect(new Set(receipt.messageIds).size).toBe(messages.length);
    expect(retry.reports).toEqual(messages.slice(1).map((_, index) => receipt.messageIds.slice(0, index + 2)));
  });

  it('sends nothing when every message was delivered already', async () => {
    const delivered = messages.map((_, index) => `om_earlier_${index}`);
    const progress = recordingProgress(delivered);
    expect(await outbound.send(to, markdown, progress)).toEqual({ messageIds: delivered });
    expect(double.callsOf('/reply')).toHaveLength(0);
    expect(progress.reports).toHaveLength(0);
  });
});
