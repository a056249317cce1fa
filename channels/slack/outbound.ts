import { BotError, type ConversationRef, type DeliveryReceipt } from '../../src/core/index.js';
import { toPlatformError } from './errors.js';
import { markdownToMrkdwn } from './format.js';
import { escapeMrkdwn } from './mrkdwn-text.js';
import { withRateLimitRetry } from './rate-limit.js';
import { splitMrkdwn } from './split.js';
import type { ThreadMemory } from './thread-memory.js';
import type { SlackClients } from './web-clients.js';

export interface SlackOutbound {
  send(to: ConversationRef, markdown: string): Promise<DeliveryReceipt>;
  sendNotice(to: ConversationRef, text: string): Promise<DeliveryReceipt>;
  /** Posts mrkdwn chunks in order (into the conversation's thread) and remembers the thread. */
  postChunks(to: ConversationRef, chunks: string[], options?: { mrkdwn?: boolean }): Promise<string[]>;
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

  async function postChunks(to: ConversationRef, chunks: string[], options: { mrkdwn?: boolean } = {}): Promise<string[]> {
    const messageIds: string[] = [];
    for (const chunk of chunks) {
      messageIds.push(await postOne(to, chunk, options.mrkdwn ?? true));
      if (messageIds.length === 1) await threads.rememberReply(to);
    }
    return messageIds;
  }

  return {
    postChunks,
    async send(to, markdown) {
      return { messageIds: await postChunks(to, splitMrkdwn(markdownToMrkdwn(markdown))) };
    },
    async sendNotice(to, text) {
      const chunks = splitMrkdwn(escapeMrkdwn(text), { codeFences: false });
      return { messageIds: await postChunks(to, chunks, { mrkdwn: false }) };
    },
  };
}
