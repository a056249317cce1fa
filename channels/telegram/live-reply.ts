import { randomUUID } from 'node:crypto';
import { Api, GrammyError, HttpError } from 'grammy';
import type { ConversationRef, LiveReply, LiveReplyOptions, PlatformCallRecorder } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { openPlatformLiveReply, type PreviewOutcome } from '../shared/index.js';
import { installApiLogging } from './api-logging.js';
import { targetOf } from './conversation-target.js';
import { installThreadFallback } from './thread-fallback.js';
import type { EditPacer } from './edit-pacer.js';
import { isParseEntitiesError } from './errors.js';
import { createPreviewText, samePreview, type Preview } from './live-preview.js';
import type { MessageIdWatermark } from './message-ids.js';
import { renderAnswerChunks, type TelegramOutbound } from './outbound.js';
import { apiClientOptions } from './api-client-options.js';

/** About one edit a second per chat: Telegram's flood limit for a chat is of that order. */
export const LIVE_EDIT_INTERVAL_MS = 1000;
/** A preview call that hangs is given up on: the next one carries newer text anyway. */
const PREVIEW_TIMEOUT_SECONDS = 30;
const NO_LINK_PREVIEWS = { link_preview_options: { is_disabled: true } };

export interface LiveReplyDependencies {
  /** With retries (429, 5xx, network): the final edit and the removal of a preview must get through. */
  api: Api;
  /** Without retries (see `createPreviewApi`): a preview held back by a 429 is skipped, never slept on. */
  previewApi: Api;
  outbound: TelegramOutbound;
  /** Shared by every live reply of the channel: edits are paced per chat. */
  pacer: EditPacer;
  watermark: MessageIdWatermark;
  logger: Logger;
}

/**
 * The Bot API client for previews: logged like the main one, but with no retry transformers. A 429 comes
 * back at once (the chat is held back by `retry_after` and the next preview carries newer text), and a
 * preview never waits in a retry loop that `finish` would then wait for.
 */
export function createPreviewApi(token: string, apiRoot: string, logger: Logger, record?: PlatformCallRecorder): Api {
  const api = new Api(token, apiClientOptions(apiRoot, { timeoutSeconds: PREVIEW_TIMEOUT_SECONDS }));
  installApiLogging(api, logger, record);
  installThreadFallback(api, logger);
  return api;
}

/**
 * A reply written while the model streams (the shared "finished in place" state machine): the preview
 * message is sent, then edited, paced per chat with the other replies of the chat; past one message it
 * shows the answer's first message and a cut mark, the part the final answer puts in this message.
 * `finish` edits the first formatted chunk into the preview and sends the rest; if that edit fails the
 * answer is sent normally and the preview deleted.
 */
export function openLiveReply(deps: LiveReplyDependencies, to: ConversationRef, options: LiveReplyOptions = {}): LiveReply {
  const { api, outbound, pacer, logger } = deps;
  const chatKey = String(targetOf(to).chat_id);
  const replyId = randomUUID();
  const text = createPreviewText();
  const { adopt, ...rest } = options;
  return openPlatformLiveReply<Preview, string>(
    {
      previewOf: text.of,
      samePreview,
      waitMs: () => pacer.waitMs(chatKey, replyId),
      showPreview: (preview, id, posted) => showPreview(deps, to, { chatKey, replyId, goPlain: text.goPlain }, preview, id, posted),
      closed: () => pacer.leave(chatKey, replyId),
      finalParts: renderAnswerChunks,
      deliverParts: (chunks, progress, first) => outbound.sendHtmlChunks(to, chunks, progress, first && { messageId: Number(first.id), edit: first.edit }),
      deliverNormally: (markdown, progress) => outbound.send(to, markdown, progress),
      async editPreview(id, html, shown) {
        if (shown !== undefined && shown.html && shown.text === html) return;
        await outbound.editHtml(to, Number(id), html);
      },
      async deletePreview(id) {
        try {
          await api.deleteMessage(targetOf(to).chat_id, Number(id));
        } catch (error) {
          logger.warn({ chatId: to.chatId, messageId: Number(id), error: errorText(error) }, 'could not delete the telegram live reply preview');
        }
      },
      finalEditFailed: (error) => logger.warn({ chatId: to.chatId, error: errorText(error) }, 'final telegram live reply edit failed, sending the answer normally'),
    },
    // only a message id can be adopted
    adopt !== undefined && /^\d+$/.test(adopt) ? { ...rest, adopt } : rest,
  );
}

interface PreviewSlot {
  chatKey: string;
  replyId: string;
  goPlain(): void;
}

/** One preview call: the message sent (its id then known) or edited, paced with the chat's other replies. */
async function showPreview(deps: LiveReplyDependencies, to: ConversationRef, slot: PreviewSlot, preview: Preview, id: string | undefined, posted: (id: string) => void): Promise<PreviewOutcome> {
  const { previewApi, pacer, watermark } = deps;
  const { chat_id: chatId, ...thread } = targetOf(to);
  pacer.took(slot.chatKey, slot.replyId);
  const format = preview.html ? { parse_mode: 'HTML' as const } : {};
  try {
    if (id === undefined) {
      const message = await previewApi.sendMessage(chatId, preview.text, { ...thread, ...format, ...NO_LINK_PREVIEWS });
      watermark.saw(chatId, message.message_id);
      posted(String(message.message_id));
    } else {
      await previewApi.editMessageText(chatId, Number(id), preview.text, { ...format, ...NO_LINK_PREVIEWS });
    }
    return 'shown';
  } catch (error) {
    return previewFailed(deps, to, slot, error, preview.html, id);
  } finally {
    // paced from the answer, so Telegram sees the calls at least an interval apart
    pacer.took(slot.chatKey);
  }
}

/** What a failed preview call means for the next one. */
function previewFailed(deps: LiveReplyDependencies, to: ConversationRef, slot: PreviewSlot, error: unknown, html: boolean, id: string | undefined): PreviewOutcome {
  const { pacer, logger } = deps;
  const retryAfterMs = retryAfterOf(error);
  const detail = { chatId: to.chatId, error: errorText(error) };
  if (retryAfterMs !== undefined) {
    // nothing was sent: the chat waits, then the latest text goes out
    pacer.holdOff(slot.chatKey, retryAfterMs);
    logger.debug({ ...detail, retryAfterMs }, 'telegram live reply preview rate limited, skipped');
    return 'retry';
  }
  if (isNotModified(error)) return 'shown';
  if (html && isParseEntitiesError(error)) {
    slot.goPlain();
    logger.warn(detail, 'telegram rejected the preview HTML, previewing as plain text');
    return 'retry';
  }
  if (id !== undefined && error instanceof HttpError) {
    // an edit lost on the network: the next one carries the latest text
    logger.debug(detail, 'telegram live reply edit failed');
    return 'retry';
  }
  // a preview send that may have gone through (network), or a refusal that will not change
  logger.warn(detail, 'telegram live reply preview failed, the answer will be delivered without it');
  return 'off';
}

function retryAfterOf(error: unknown): number | undefined {
  if (!(error instanceof GrammyError) || error.error_code !== 429) return undefined;
  return (error.parameters.retry_after ?? 1) * 1000;
}

function isNotModified(error: unknown): boolean {
  return error instanceof GrammyError && error.error_code === 400 && /message is not modified/i.test(error.description);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
