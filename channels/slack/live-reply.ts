import type { ConversationRef, LiveReply, LiveReplyOptions } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { openPlatformLiveReply } from '../shared/index.js';
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
 * A reply written while the model streams (the shared "finished in place" state machine): the first update
 * posts a placeholder with the text so far, later updates edit it with `chat.update`, throttled. A preview
 * longer than one message shows its tail. The placeholder carries the metadata of part 0 of `options.key`.
 */
export function openLiveReply(deps: LiveReplyDependencies, to: ConversationRef, options: LiveReplyOptions = {}): LiveReply {
  const { clients, outbound, logger } = deps;
  const intervalMs = deps.intervalMs ?? LIVE_EDIT_INTERVAL_MS;
  const render = (markdown: string): string[] => splitMrkdwn(markdownToMrkdwn(markdown));
  const editWithRetry = (ts: string, text: string) => withRateLimitRetry(() => clients.repeatable.chat.update({ channel: to.chatId, ts, text }));
  let nextEditAt = 0;
  return openPlatformLiveReply<string, string>(
    {
      previewOf: (markdown) => previewOf(markdown) || undefined,
      samePreview: (shown, wanted) => shown === wanted,
      waitMs: () => Math.max(0, nextEditAt - Date.now()),
      async showPreview(text, ts, posted) {
        nextEditAt = Date.now() + intervalMs;
        try {
          if (ts === undefined) posted(await outbound.postOne(to, text, options.key));
          else await clients.repeatable.chat.update({ channel: to.chatId, ts, text });
          return 'shown';
        } catch (error) {
          logger.debug({ channel: to.chatId, error: slackErrorCode(error) ?? String(error) }, 'live reply edit failed');
          const retryAfterMs = retryAfterOf((error as Error).cause ?? error);
          if (retryAfterMs !== undefined) {
            nextEditAt = Date.now() + Math.max(intervalMs, retryAfterMs);
            return 'retry';
          }
          // a post that failed may still have gone through: no second placeholder
          return ts === undefined ? 'off' : 'retry';
        }
      },
      finalParts: render,
      deliverParts: async (chunks, progress, first) => ({ messageIds: await outbound.postChunks(to, chunks, {}, progress, first && { ts: first.id, edit: first.edit }) }),
      deliverNormally: async (markdown, progress) => ({ messageIds: await outbound.postChunks(to, render(markdown), {}, progress) }),
      async editPreview(ts, text) {
        await editWithRetry(ts, text);
      },
      async deletePreview(ts) {
        try {
          await withRateLimitRetry(() => clients.repeatable.chat.delete({ channel: to.chatId, ts }));
        } catch (error) {
          logger.warn({ channel: to.chatId, error: slackErrorCode(error) ?? String(error) }, 'could not delete the live reply placeholder');
        }
      },
      finalEditFailed: (error) => logger.warn({ channel: to.chatId, error: slackErrorCode(error) ?? String(error) }, 'final live reply edit failed, posting the answer instead'),
    },
    options,
  );
}

/** The formatted text so far; past one message, its last part (the part being written). */
export function previewOf(markdown: string): string {
  if (markdown.trim() === '') return '';
  const chunks = splitMrkdwn(markdownToMrkdwn(markdown), { limit: SLACK_MESSAGE_LIMIT - ELLIPSIS.length });
  return chunks.length <= 1 ? (chunks[0] ?? '') : ELLIPSIS + (chunks.at(-1) as string);
}
