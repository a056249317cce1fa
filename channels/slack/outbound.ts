import { BotError, type ConversationRef, type DeliveryProgress, type DeliveryReceipt } from '../../src/core/index.js';
import { toPlatformError } from './errors.js';
import { markdownToMrkdwn } from './format.js';
import { escapeMrkdwn } from './mrkdwn-text.js';
import { withRateLimitRetry } from './rate-limit.js';
import { splitMrkdwn } from './split.js';
import type { ThreadMemory } from './thread-memory.js';
import type { SlackClients } from './web-clients.js';

export interface SlackOutbound {
  /** Posts the answer's chunks in order, skipping the ones `progress` says were delivered (chunking is deterministic). */
  send(to: ConversationRef, markdown: string, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
  sendNotice(to: ConversationRef, text: string): Promise<DeliveryReceipt>;
  /**
   * Posts mrkdwn chunks in order (into the conversation's thread) and remembers the thread. With `progress`,
   * the first `progress.delivered.length` chunks are skipped and `onDelivered` learns of each chunk posted.
   */
  postChunks(to: ConversationRef, chunks: string[], options?: { mrkdwn?: boolean }, progress?: DeliveryProgress): Promise<string[]>;
}

export function createOutbound(clients: SlackClients, threads: ThreadMemory): SlackOutbound {
  async function postOne(to: ConversationRef, text: string, mrkdwn: boolean): Promise<string> {
    let ts: string | undefined;
    try {
      const result = await withRateLimitRetry(() =>
        clients.posting.chat.postMessage({
          channel: to.chatId,
          text,
          mrkdwn,
          unfurl_links: false,
          unfurl_media: false,
          ...(to.threadId !== undefined ? { thread_ts: to.threadId } : {}),
        }),
      );
      ts = result.ts;
    } catch (error) {
      throw toPlatformError(error, 'chat.postMessage', { mayHaveActed: true });
    }
    if (ts === undefined) throw new BotError('platform', 'Slack chat.postMessage answered without a message ts');
    return ts;
  }

  async function postChunks(to: ConversationRef, chunks: string[], options: { mrkdwn?: boolean } = {}, progress?: DeliveryProgress): Promise<string[]> {
    const messageIds = [...(progress?.delivered ?? [])];
    let posted = 0;
    for (const chunk of chunks.slice(messageIds.length)) {
      messageIds.push(await postOne(to, chunk, options.mrkdwn ?? true));
      posted += 1;
      if (posted === 1) await threads.rememberReply(to);
      await progress?.onDelivered([...messageIds]);
    }
    return messageIds;
  }

  return {
    postChunks,
    async send(to, markdown, progress) {
      return { messageIds: await postChunks(to, splitMrkdwn(markdownToMrkdwn(markdown)), {}, progress) };
    },
    async sendNotice(to, text) {
      const chunks = splitMrkdwn(escapeMrkdwn(text), { codeFences: false });
      return { messageIds: await postChunks(to, chunks, { mrkdwn: false }) };
    },
  };
}
