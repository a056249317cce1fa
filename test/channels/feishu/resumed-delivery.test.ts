import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFeishuClient } from '../../../channels/feishu/client.js';
import { renderAnswer } from '../../../channels/feishu/format.js';
import { createHttpInstance } from '../../../channels/feishu/http-instance.js';
import { createChannelMemory } from '../../../channels/feishu/inbound-pipeline.js';
import { createMessagesApi } from '../../../channels/feishu/messages-api.js';
import { createFeishuFiles } from '../../../channels/feishu/files.js';
import { createOutbound, partUuid, type FeishuOutbound } from '../../../channels/feishu/outbound.js';
import type { ConversationRef } from '../../../src/core/index.js';
import { dyingAt, recordingProgress } from '../../support/recording-progress.js';
import { startFeishuDouble, type FeishuDouble } from '../../doubles/feishu-double.js';
import { memoryState, silentLogger } from './channel-fixture.js';

function longAnswer(): string {
  return Array.from({ length: 40 }, (_, index) => `## Part ${index}\n\n${`Some text about part ${index}. `.repeat(12)}\n\n\`\`\`python\nprint(${index})\n\`\`\``).join('\n\n');
}

// `send(to, markdown, progress)` of the Feishu outbound (the channel's `send` hands `progress` on to it)
describe('feishu resumable delivery', () => {
  let double: FeishuDouble;
  let outbound: FeishuOutbound;
  let files: ReturnType<typeof createFeishuFiles>;
  let to: ConversationRef;
  const markdown = longAnswer();
  const messages = renderAnswer(markdown);

  beforeEach(async () => {
    double = await startFeishuDouble();
    const config = { appId: double.appId, appSecret: double.appSecret, verificationToken: double.verificationToken, encryptKey: double.encryptKey, domain: double.domain, mode: 'webhook' as const };
    const client = createFeishuClient(config, createHttpInstance(), silentLogger);
    const api = createMessagesApi(client, silentLogger);
    outbound = createOutbound(api, createChannelMemory(memoryState(), double.appId, silentLogger));
    files = createFeishuFiles(client, outbound, silentLogger);
    to = { channel: 'feishu', accountId: double.appId, chatId: 'oc_group_chat', chatType: 'group', messageId: 'om_group_q' };
  });
  afterEach(() => double.close());

  it('announces each message before sending it (with the ids out so far), under a uuid of its part, and reports every id at the end', async () => {
    expect(messages.length).toBeGreaterThanOrEqual(3);
    const progress = recordingProgress();
    const receipt = await outbound.send(to, markdown, progress);
    expect(receipt.messageIds).toHaveLength(messages.length);
    expect(progress.intents.map((intent) => intent.delivered)).toEqual(messages.map((_, index) => receipt.messageIds.slice(0, index)));
    expect(progress.reports).toEqual([receipt.messageIds]);
    expect(double.callsOf('/reply').map((call) => call.body.uuid)).toEqual(messages.map((_, part) => partUuid(progress.key, part)));
  });

  it('a takeover sends the message in doubt again under the same uuid: Feishu answers with the first one, nothing is doubled', async () => {
    // the first attempt dies after message 1 went out, before it recorded it
    const first = dyingAt(recordingProgress(), 2);
    await expect(outbound.send(to, markdown, first)).rejects.toThrow('worker lost');
    const left = first.leftBehind();
    expect(left).toMatchObject({ delivered: [expect.any(String)], inDoubt: { part: 1 } });

    const retry = recordingProgress({ key: first.key, ...left });
    const receipt = await outbound.send(to, markdown, retry);

    expect(retry.resolutions).toEqual(['idempotent_resend']);
    const stored = [...double.messages.values()].filter((message) => message.parentId === 'om_group_q');
    expect(stored.map((message) => JSON.stringify(message.content))).toEqual(messages.map((message) => JSON.stringify(JSON.parse(message.content))));
    expect(receipt.messageIds).toEqual(stored.map((message) => message.messageId));
  });

  it('past the hour Feishu keeps a uuid, the message in doubt is sent again and counted as unverified', async () => {
    const progress = recordingProgress({ delivered: [], inDoubt: { part: 0, hint: {}, at: Date.now() - 2 * 60 * 60 * 1000 } });
    await outbound.send(to, markdown, progress);
    expect(progress.resolutions).toEqual(['unverified_resend']);
  });

  it('sends nothing when every message was delivered already', async () => {
    const delivered = messages.map((_, index) => `om_earlier_${index}`);
    const progress = recordingProgress({ delivered });
    expect(await outbound.send(to, markdown, progress)).toEqual({ messageIds: delivered });
    expect(double.callsOf('/reply')).toHaveLength(0);
    expect(progress.reports).toHaveLength(0);
  });

  it('a file (and its caption) the dead attempt sent is sent again under the same uuids: Feishu keeps one of each', async () => {
    const file = { bytes: Buffer.from('%PDF-1.4 minimal'), fileName: 'report.pdf', mimeType: 'application/pdf', kind: 'document' as const, caption: 'The report' };
    const first = recordingProgress();
    first.onDelivered = async () => {
      throw new Error('worker lost');
    };
    await expect(files.send(to, file, first)).rejects.toThrow('worker lost');
    const retry = recordingProgress({ key: first.key, ...first.leftBehind() });
    const receipt = await files.send(to, file, retry);
    expect(retry.resolutions).toEqual(['idempotent_resend']);
    const sent = [...double.messages.values()].filter((message) => message.parentId === 'om_group_q');
    expect(sent.map((message) => message.msgType)).toEqual(['file', 'text']);
    expect(receipt.messageIds).toEqual(sent.map((message) => message.messageId));
  });
});
