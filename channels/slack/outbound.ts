import { BotError, type ConversationRef, type DeliveryProgress, type DeliveryReceipt, type SendHint } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { deliverParts, type PartSender } from '../shared/index.js';
import { toPlatformError } from './errors.js';
import { markdownToMrkdwn } from './format.js';
import { escapeMrkdwn } from './mrkdwn-text.js';
import { withRateLimitRetry, type RetryBound } from './rate-limit.js';
import { partMetadata, settleByMetadata } from './sent-lookup.js';
import { splitMrkdwn } from './split.js';
import type { ThreadMemory } from './thread-memory.js';
import type { SlackClients } from './web-clients.js';

/** A message already in the conversation that becomes the first part (a live reply's placeholder). */
export interface FirstPartInPlace {
  ts: string;
  edit(text: string): Promise<void>;
}

export interface SlackOutbound {
  /** Posts the answer's chunks in order, skipping the ones `progress` says were delivered (chunking is deterministic). */
  send(to: ConversationRef, markdown: string, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
  sendNotice(to: ConversationRef, text: string, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
  /**
   * Posts mrkdwn chunks in order (into the conversation's thread) and remembers the thread. With `progress`,
   * the first `progress.delivered.length` chunks are skipped, a chunk in doubt is looked up first, and each post
   * carries its part's metadata; with `first`, chunk 0 is edited into that message.
   */
  postChunks(to: ConversationRef, chunks: string[], options?: { mrkdwn?: boolean }, progress?: DeliveryProgress, first?: FirstPartInPlace): Promise<string[]>;
  /** One post outside any delivery (a live reply's placeholder), with the metadata of part 0 of `key` when given. */
  postOne(to: ConversationRef, text: string, key?: string): Promise<string>;
}

export function createOutbound(clients: SlackClients, threads: ThreadMemory, logger: Logger): SlackOutbound {
  async function postOne(to: ConversationRef, text: string, mrkdwn: boolean, metadata?: ReturnType<typeof partMetadata>, bound?: RetryBound): Promise<string> {
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
          ...(metadata ? { metadata } : {}),
        }),
      bound);
      ts = result.ts;
    } catch (error) {
      // a post of a recorded part may be tried again: its metadata tells a retry whether it went out
      throw toPlatformError(error, 'chat.postMessage', { mayHaveActed: metadata === undefined });
    }
    if (ts === undefined) throw new BotError('platform', 'Slack chat.postMessage answered without a message ts');
    return ts;
  }

  async function update(to: ConversationRef, ts: string, text: string): Promise<void> {
    try {
      await withRateLimitRetry(() => clients.repeatable.chat.update({ channel: to.chatId, ts, text }));
    } catch (error) {
      throw toPlatformError(error, 'chat.update');
    }
  }

  function chunkParts(to: ConversationRef, mrkdwn: boolean, key: string | undefined, first?: FirstPartInPlace): PartSender<string> {
    let remembered = false;
    return {
      hint: (_chunk, index): SendHint => (index === 0 && first ? { edit: first.ts } : {}),
      sendTimeoutMs: clients.timeoutMs,
      async send(chunk, index, _hint, deadline) {
        if (index === 0 && first) {
          await first.edit(chunk);
          return first.ts;
        }
        const bound = deadline !== undefined ? { deadline, attemptTimeoutMs: clients.timeoutMs } : undefined;
        const ts = await postOne(to, chunk, mrkdwn, key !== undefined ? partMetadata(key, index) : undefined, bound);
        if (!remembered) {
          remembered = true;
          await threads.rememberReply(to);
        }
        return ts;
      },
      async settle(chunk, index, doubt) {
        // an edit of a message already there: editing again is harmless
        if (typeof doubt.hint.edit === 'string') {
          await (first?.edit(chunk) ?? update(to, doubt.hint.edit, chunk));
          return { id: doubt.hint.edit, resolution: 'found' };
        }
        return key === undefined ? { resolution: 'unverified_resend' } : settleByMetadata(clients.repeatable, to, key, index, doubt.at, logger);
      },
    };
  }

  async function postChunks(to: ConversationRef, chunks: string[], options: { mrkdwn?: boolean } = {}, progress?: DeliveryProgress, first?: FirstPartInPlace): Promise<string[]> {
    return deliverParts(chunks, progress, chunkParts(to, options.mrkdwn ?? true, progress?.key, first));
  }

  return {
    postChunks,
    async postOne(to, text, key) {
      const ts = await postOne(to, text, true, key !== undefined ? partMetadata(key, 0) : undefined);
      await threads.rememberReply(to);
      return ts;
    },
    async send(to, markdown, progress) {
      return { messageIds: await postChunks(to, splitMrkdwn(markdownToMrkdwn(markdown)), {}, progress) };
    },
    async sendNotice(to, text, progress) {
      const chunks = splitMrkdwn(escapeMrkdwn(text), { codeFences: false });
      return { messageIds: await postChunks(to, chunks, { mrkdwn: false }, progress) };
    },
  };
}
