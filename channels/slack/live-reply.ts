import type { ConversationRef, DeliveryReceipt, LiveReply, LiveReplyOptions } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { slackErrorCode } from './errors.js';
import { markdownToMrkdwn } from './format.js';
import type { SlackOutbound } from './outbound.js';
import { retryAfterOf, withRateLimitRetry } from './rate-limit.js';
import { SLACK_MESSAGE_LIMIT, splitMrkdwn } from './split.js';
import type { SlackClients } from './web-clients.js';

/** About one edit a second: chat.update is a Tier 3 method, shared by every reply streaming in the workspace. */
export const LIVE_EDIT_INTERVAL_MS = 1000;
const ELLIPSIS = '…\n';

export interface LiveReplyDependencies {
  clients: SlackClients;
  outbound: SlackOutbound;
  logger: Logger;
  intervalMs?: number;
}

/**
 * A reply written while the model streams: the first update posts a placeholder with the text so far,
 * later updates edit it with `chat.update`, throttled (the latest text wins). A preview longer than one
 * message shows its tail. `finish` puts the first formatted chunk into the placeholder and posts the rest;
 * `discard` deletes the placeholder. The placeholder carries the metadata of part 0 of `options.key`; one an
 * earlier holder of the turn left (`options.adopt`) is edited, finished or deleted as if this reply had posted it.
 */
export function openLiveReply(deps: LiveReplyDependencies, to: ConversationRef, options: LiveReplyOptions = {}): LiveReply {
  const { clients, outbound, logger } = deps;
  const intervalMs = deps.intervalMs ?? LIVE_EDIT_INTERVAL_MS;
  let latest = '';
  let shown = '';
  let placeholderTs: string | undefined = options.adopt;
  /** The placeholder post failed in a way that may have posted: no more previews, the final answer is posted normally. */
  let previewsOff = false;
  let closed = false;
  let nextEditAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;

  function schedule(): void {
    if (closed || previewsOff || timer !== undefined || inFlight !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      inFlight = showLatest().finally(() => {
        inFlight = undefined;
        if (previewOf(latest) !== shown) schedule();
      });
    }, Math.max(0, nextEditAt - Date.now()));
  }

  async function showLatest(): Promise<void> {
    const text = previewOf(latest);
    if (closed || text === '' || text === shown) return;
    nextEditAt = Date.now() + intervalMs;
    try {
      if (placeholderTs === undefined) {
        placeholderTs = await outbound.postOne(to, text, options.key);
        options.onPreview?.(placeholderTs);
      } else {
        await clients.repeatable.chat.update({ channel: to.chatId, ts: placeholderTs, text });
      }
      shown = text;
    } catch (error) {
      const retryAfterMs = retryAfterOf((error as Error).cause ?? error);
      if (retryAfterMs !== undefined) nextEditAt = Date.now() + Math.max(intervalMs, retryAfterMs);
      else if (placeholderTs === undefined) previewsOff = true;
      logger.debug({ channel: to.chatId, error: slackErrorCode(error) ?? String(error) }, 'live reply edit failed');
    }
  }

  async function settle(): Promise<void> {
    closed = true;
    clearTimeout(timer);
    timer = undefined;
    await inFlight;
  }

  async function deletePlaceholder(): Promise<void> {
    if (placeholderTs === undefined) return;
    const ts = placeholderTs;
    placeholderTs = undefined;
    try {
      await withRateLimitRetry(() => clients.repeatable.chat.delete({ channel: to.chatId, ts }));
    } catch (error) {
      logger.warn({ channel: to.chatId, error: slackErrorCode(error) ?? String(error) }, 'could not delete the live reply placeholder');
    }
  }

  return {
    update(textSoFar) {
      if (closed) return;
      latest = textSoFar;
      schedule();
    },
    async finish(finalMarkdown, progress): Promise<DeliveryReceipt> {
      await settle();
      const chunks = splitMrkdwn(markdownToMrkdwn(finalMarkdown));
      const placeholder = placeholderTs;
      if (placeholder === undefined) return { messageIds: await outbound.postChunks(to, chunks, {}, progress) };
      if (chunks.length === 0) {
        await deletePlaceholder();
        return { messageIds: [] };
      }
      let editFailed = false;
      const first = {
        ts: placeholder,
        edit: async (text: string) => {
          try {
            await withRateLimitRetry(() => clients.repeatable.chat.update({ channel: to.chatId, ts: placeholder, text }));
          } catch (error) {
            editFailed = true;
            throw error;
          }
        },
      };
      try {
        const messageIds = await outbound.postChunks(to, chunks, {}, progress, first);
        placeholderTs = undefined;
        return { messageIds };
      } catch (error) {
        if (!editFailed) throw error;
        logger.warn({ channel: to.chatId, error: slackErrorCode(error) ?? String(error) }, 'final live reply edit failed, posting the answer instead');
        const messageIds = await outbound.postChunks(to, chunks, {}, progress && { ...progress, inDoubt: undefined });
        await deletePlaceholder();
        return { messageIds };
      }
    },
    async discard() {
      await settle();
      await deletePlaceholder();
    },
  };
}

/** The formatted text so far; past one message, its last part (the part being written). */
export function previewOf(markdown: string): string {
  if (markdown.trim() === '') return '';
  const chunks = splitMrkdwn(markdownToMrkdwn(markdown), { limit: SLACK_MESSAGE_LIMIT - ELLIPSIS.length });
  return chunks.length <= 1 ? (chunks[0] ?? '') : ELLIPSIS + (chunks.at(-1) as string);
}
