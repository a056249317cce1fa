import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from '../../../channels/slack/format.js';
import { createSlackFiles } from '../../../channels/slack/files.js';
import { createOutbound, type SlackOutbound } from '../../../channels/slack/outbound.js';
import { splitMrkdwn } from '../../../channels/slack/split.js';
import { createThreadMemory } from '../../../channels/slack/thread-memory.js';
import { createWebClients } from '../../../channels/slack/web-clients.js';
import type { ConversationRef } from '../../../src/core/index.js';
import { DELIVERY_EVENT_TYPE } from '../../../channels/slack/sent-lookup.js';
import { dyingAt, recordingProgress } from '../../support/recording-progress.js';
import { startSlackDouble, type SlackDouble } from '../../doubles/slack-double.js';
import { memoryState, silentLogger } from './channel-fixture.js';

const TEAM = 'T0TEAM01';
const thread: ConversationRef = { channel: 'slack', accountId: TEAM, chatId: 'C0GENERAL', chatType: 'group', threadId: '1700000100.000200', messageId: '1700000100.000200' };

function longAnswer(): string {
  return Array.from({ length: 30 }, (_, index) =>
    [`### Part ${index}`, `Some **important** text about part ${index}, with a [link](https://example.com/${index}). `.repeat(4), '```js\n' + `console.log(${index});\n`.repeat(10) + '```'].join('\n\n'),
  ).join('\n\n');
}

// `send(to, markdown, progress)` of the Slack outbound (the channel's `send` hands `progress` on to it)
describe('slack resumable delivery', () => {
  let double: SlackDouble;
  let outbound: SlackOutbound;
  let files: ReturnType<typeof createSlackFiles>;
  const markdown = longAnswer();
  const chunks = splitMrkdwn(markdownToMrkdwn(markdown));

  beforeEach(async () => {
    double = await startSlackDouble();
    const clients = createWebClients({ botToken: double.botToken, signingSecret: double.signingSecret, appToken: undefined, apiUrl: double.apiUrl }, silentLogger);
    outbound = createOutbound(clients, createThreadMemory(memoryState(), TEAM, silentLogger), silentLogger);
    files = createSlackFiles(clients, double.botToken, double.apiUrl);
  });
  afterEach(() => double.close());
  const clients = () => createWebClients({ botToken: double.botToken, signingSecret: double.signingSecret, appToken: undefined, apiUrl: double.apiUrl }, silentLogger).repeatable;

  it('announces each chunk before posting it (with the ids out so far), tags it with its part, and reports every id at the end', async () => {
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    const progress = recordingProgress();
    const receipt = await outbound.send(thread, markdown, progress);
    expect(receipt.messageIds).toHaveLength(chunks.length);
    expect(progress.intents.map((intent) => intent.delivered)).toEqual(chunks.map((_, index) => receipt.messageIds.slice(0, index)));
    expect(progress.reports).toEqual([receipt.messageIds]);
    expect(double.callsOf('chat.postMessage').map((call) => call.params.metadata)).toEqual(
      chunks.map((_, part) => ({ event_type: DELIVERY_EVENT_TYPE, event_payload: { delivery: progress.key, part } })),
    );
  });

  it('a takeover finds the chunk the dead attempt posted but never recorded by its metadata, and posts only the rest', async () => {
    // the first attempt dies after chunk 1 went out, before it recorded it
    const first = dyingAt(recordingProgress(), 2);
    await expect(outbound.send(thread, markdown, first)).rejects.toThrow('worker lost');
    const left = first.leftBehind();
    expect(left).toMatchObject({ delivered: [expect.any(String)], inDoubt: { part: 1 } });

    const retry = recordingProgress({ key: first.key, ...left });
    const receipt = await outbound.send(thread, markdown, retry);

    const posts = double.callsOf('chat.postMessage');
    expect(posts.map((call) => call.params.text)).toEqual(chunks);
    expect(posts.every((call) => call.params.thread_ts === thread.threadId && !call.failed)).toBe(true);
    expect(double.callsOf('conversations.replies').map((call) => [call.params.ts, call.params.include_all_metadata])).toEqual([[thread.threadId, 'true']]);
    expect(retry.resolutions).toEqual(['found']);
    expect(receipt.messageIds.map((ts) => double.messages.get(`${thread.chatId}:${ts}`)?.text)).toEqual(chunks);
  });

  it('a chunk in doubt that never reached Slack is posted (in a DM, looked up in the history)', async () => {
    const dm: ConversationRef = { channel: 'slack', accountId: TEAM, chatId: 'D0DIRECT1', chatType: 'dm', messageId: '1700000100.000300' };
    const progress = recordingProgress({ delivered: [], inDoubt: { part: 0, hint: {}, at: Date.now() } });
    const receipt = await outbound.send(dm, markdown, progress);
    expect(progress.resolutions).toEqual(['not_sent']);
    expect(double.callsOf('conversations.history')).toHaveLength(1);
    expect(receipt.messageIds.map((ts) => double.messages.get(`${dm.chatId}:${ts}`)?.text)).toEqual(chunks);
  });

  it('posts nothing when every chunk was delivered already', async () => {
    const delivered = chunks.map((_, index) => `1700000200.00000${index}`);
    const progress = recordingProgress({ delivered });
    expect(await outbound.send(thread, markdown, progress)).toEqual({ messageIds: delivered });
    expect(double.callsOf('chat.postMessage')).toHaveLength(0);
    expect(progress.reports).toHaveLength(0);
  });

  it('a file the dead attempt shared is found by files.info, not shared again; one only uploaded is uploaded and shared anew', async () => {
    const file = { bytes: Buffer.from('a,b\n1,2\n'), fileName: 'table.csv', mimeType: 'text/csv', kind: 'document' as const };
    const first = recordingProgress();
    first.onDelivered = async () => {
      throw new Error('worker lost');
    };
    await expect(files.send(thread, file, first)).rejects.toThrow('worker lost');
    const retry = recordingProgress({ key: first.key, ...first.leftBehind() });
    const receipt = await files.send(thread, file, retry);
    expect(retry.resolutions).toEqual(['found']);
    expect(double.uploads).toHaveLength(1);
    expect(receipt.messageIds).toEqual([double.uploads[0]!.fileId]);

    // uploaded, never completed (the worker died between the upload and its completion)
    const unshared = await clients().files.getUploadURLExternal({ filename: 'other.csv', length: 3 });
    const orphan = recordingProgress({ delivered: [], inDoubt: { part: 0, hint: { file: unshared.file_id! }, at: Date.now() } });
    await files.send(thread, { ...file, fileName: 'other.csv' }, orphan);
    expect(orphan.resolutions).toEqual(['not_sent']);
    expect(double.uploads.map((upload) => upload.fileName)).toEqual(['table.csv', 'other.csv']);
  });
});
