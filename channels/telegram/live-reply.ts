import { randomUUID } from 'node:crypto';
import { Api, GrammyError, HttpError } from 'grammy';
import type { ConversationRef, DeliveryReceipt, LiveReply, LiveReplyOptions, PlatformCallRecorder } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { installApiLogging } from './api-logging.js';
import { targetOf } from './conversation-target.js';
import type { EditPacer } from './edit-pacer.js';
import { isParseEntitiesError } from './errors.js';
import { markdownToTelegramHtml } from './format.js';
import { htmlToPlainText } from './html-text.js';
import type { MessageIdWatermark } from './message-ids.js';
import { renderAnswerChunks, type TelegramOutbound } from './outbound.js';
import { splitTelegramHtml, TELEGRAM_MESSAGE_LIMIT } from './split.js';

/** About one edit a second per chat: Telegram's flood limit for a chat is of that order. */
export const LIVE_EDIT_INTERVAL_MS = 1000;
/** A preview call that hangs is given up on: the next one carries newer text anyway. */
const PREVIEW_TIMEOUT_SECONDS = 30;
/** Marks a preview cut at one message while the answer goes on. */
const CUT_MARK = '\n…';
const NO_LINK_PREVIEWS = { link_preview_options: { is_disabled: true } };
const LEADING_MARKS = /^[\s"'`*_()[\]{}<>.,;:!?\-\u201C\u201D\u2018\u2019\u00AB\u00BB]+/;
const SILENT_TOKEN = 'NO_REPLY';

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

/** What the preview message shows: Telegram HTML, or plain text once Telegram refused our HTML. */
interface Preview {
  text: string;
  html: boolean;
}

/**
 * The Bot API client for previews: logged like the main one, but with no retry transformers. A 429 comes
 * back at once (the chat is held back by `retry_after` and the next preview carries newer text), and a
 * preview never waits in a retry loop that `finish` would then wait for.
 */
export function createPreviewApi(token: string, apiRoot: string, logger: Logger, record?: PlatformCallRecorder): Api {
  const api = new Api(token, { apiRoot, timeoutSeconds: PREVIEW_TIMEOUT_SECONDS });
  installApiLogging(api, logger, record);
  return api;
}

/**
 * A reply written while the model streams. The first update sends a preview message (the text so far,
 * rendered to Telegram HTML by the same renderer as the final answer, so it always parses and the
 * final edit changes little); later updates edit it in place, paced per chat (the latest text wins,
 * unchanged text is not sent again). Past one message, the preview shows the answer's first message
 * and a cut mark: that is the part the final answer puts in this message. `finish` edits the first
 * formatted chunk into the preview and sends the rest as new messages; if that edit fails the answer
 * is sent normally and the preview deleted. `discard` deletes the preview. A preview an earlier holder of the
 * turn left (`options.adopt`) is edited, finished or deleted as if this reply had sent it.
 */
export function openLiveReply(deps: LiveReplyDependencies, to: ConversationRef, options: LiveReplyOptions = {}): LiveReply {
  const { api, previewApi, outbound, pacer, watermark, logger } = deps;
  const { chat_id: chatId, ...thread } = targetOf(to);
  const chatKey = String(chatId);
  const replyId = randomUUID();
  let latest = '';
  let rendered: { source: string; plain: boolean; preview: Preview | undefined } | undefined;
  let shown: Preview | undefined;
  let messageId: number | undefined = options.adopt !== undefined && /^\d+$/.test(options.adopt) ? Number(options.adopt) : undefined;
  /** Telegram refused a preview's HTML: later previews go as plain text. */
  let plainPreviews = false;
  /** The preview cannot be sent or edited any more: the final answer goes out normally (or by the final edit). */
  let previewsOff = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;

  /** The preview the latest text calls for, when it differs from the one shown. */
  function wanted(): Preview | undefined {
    if (mayStillBeSilent(latest)) return undefined;
    if (rendered === undefined || rendered.source !== latest || rendered.plain !== plainPreviews) {
      rendered = { source: latest, plain: plainPreviews, preview: previewOf(latest, plainPreviews) };
    }
    const { preview } = rendered;
    if (preview === undefined || (shown !== undefined && shown.text === preview.text && shown.html === preview.html)) return undefined;
    return preview;
  }

  function schedule(): void {
    if (closed || previewsOff || timer !== undefined || inFlight !== undefined) return;
    timer = setTimeout(fire, pacer.waitMs(chatKey, replyId));
  }

  function fire(): void {
    timer = undefined;
    if (closed) return;
    // another live reply of the chat may have taken the slot meanwhile
    if (pacer.waitMs(chatKey, replyId) > 0) return schedule();
    const preview = wanted();
    if (preview === undefined) return;
    inFlight = show(preview).finally(() => {
      inFlight = undefined;
      if (wanted() !== undefined) schedule();
    });
  }

  async function show(preview: Preview): Promise<void> {
    pacer.took(chatKey, replyId);
    const format = preview.html ? { parse_mode: 'HTML' as const } : {};
    try {
      if (messageId === undefined) {
        const message = await previewApi.sendMessage(chatId, preview.text, { ...thread, ...format, ...NO_LINK_PREVIEWS });
        messageId = message.message_id;
        watermark.saw(chatId, messageId);
        options.onPreview?.(String(messageId));
      } else {
        await previewApi.editMessageText(chatId, messageId, preview.text, { ...format, ...NO_LINK_PREVIEWS });
      }
      shown = preview;
    } catch (error) {
      previewFailed(error, preview);
    } finally {
      // paced from the answer, so Telegram sees the calls at least an interval apart
      pacer.took(chatKey);
    }
  }

  function previewFailed(error: unknown, preview: Preview): void {
    const retryAfterMs = retryAfterOf(error);
    const detail = { chatId: to.chatId, error: error instanceof Error ? error.message : String(error) };
    if (retryAfterMs !== undefined) {
      // nothing was sent: the chat waits, then the latest text goes out
      pacer.holdOff(chatKey, retryAfterMs);
      logger.debug({ ...detail, retryAfterMs }, 'telegram live reply preview rate limited, skipped');
    } else if (isNotModified(error)) {
      shown = preview;
    } else if (preview.html && isParseEntitiesError(error)) {
      plainPreviews = true;
      logger.warn(detail, 'telegram rejected the preview HTML, previewing as plain text');
    } else if (messageId !== undefined && error instanceof HttpError) {
      // an edit lost on the network: the next one carries the latest text
      logger.debug(detail, 'telegram live reply edit failed');
    } else {
      // a preview send that may have gone through (network), or a refusal that will not change
      previewsOff = true;
      logger.warn(detail, 'telegram live reply preview failed, the answer will be delivered without it');
    }
  }

  async function settle(): Promise<void> {
    closed = true;
    clearTimeout(timer);
    timer = undefined;
    pacer.leave(chatKey, replyId);
    await inFlight;
  }

  async function editFinal(id: number, html: string): Promise<void> {
    if (shown !== undefined && shown.html && shown.text === html) return;
    await outbound.editHtml(to, id, html);
  }

  async function deletePreview(): Promise<void> {
    if (messageId === undefined) return;
    const id = messageId;
    messageId = undefined;
    try {
      await api.deleteMessage(chatId, id);
    } catch (error) {
      logger.warn({ chatId: to.chatId, messageId: id, error: error instanceof Error ? error.message : String(error) }, 'could not delete the telegram live reply preview');
    }
  }

  return {
    update(textSoFar) {
      if (closed) return;
      latest = textSoFar;
      // the model may be writing NO_REPLY: show nothing until the text can no longer be that
      if (mayStillBeSilent(textSoFar)) return;
      schedule();
    },

    async finish(finalMarkdown, progress): Promise<DeliveryReceipt> {
      await settle();
      if (messageId === undefined) return outbound.send(to, finalMarkdown, progress);
      const previewId = messageId;
      const chunks = renderAnswerChunks(finalMarkdown);
      if (chunks.length === 0) {
        await deletePreview();
        return { messageIds: [] };
      }
      let editFailed = false;
      const first = {
        messageId: previewId,
        edit: async (html: string) => {
          try {
            await editFinal(previewId, html);
          } catch (error) {
            editFailed = true;
            throw error;
          }
        },
      };
      try {
        const receipt = await outbound.sendHtmlChunks(to, chunks, progress, first);
        // the message is the answer's first part now, no longer a preview
        messageId = undefined;
        return receipt;
      } catch (error) {
        if (!editFailed) throw error;
        logger.warn({ chatId: to.chatId, error: error instanceof Error ? error.message : String(error) }, 'final telegram live reply edit failed, sending the answer normally');
        try {
          return await outbound.sendHtmlChunks(to, chunks, progress && { ...progress, inDoubt: undefined });
        } finally {
          await deletePreview();
        }
      }
    },

    async discard() {
      await settle();
      await deletePreview();
    },
  };
}

/** The preview of a partial answer: its HTML if it fits one message, else its first message and a cut mark. */
export function previewOf(markdown: string, plain = false): Preview | undefined {
  const html = markdownToTelegramHtml(markdown);
  const [head, ...more] = splitTelegramHtml(html, { limit: TELEGRAM_MESSAGE_LIMIT - CUT_MARK.length }).filter((chunk) => htmlToPlainText(chunk).trim() !== '');
  if (head === undefined) return undefined;
  const text = more.length === 0 ? head : head + CUT_MARK;
  // plain text is never longer than the HTML it comes from
  return plain ? { text: htmlToPlainText(text), html: false } : { text, html: true };
}

/** True while the text so far may still become a silent `NO_REPLY` (the turn holds updates then too). */
function mayStillBeSilent(text: string): boolean {
  const start = text.replace(LEADING_MARKS, '');
  if (start.length <= SILENT_TOKEN.length) return SILENT_TOKEN.startsWith(start.toUpperCase());
  return /^no_reply(?![a-z0-9])/i.test(start);
}

function retryAfterOf(error: unknown): number | undefined {
  if (!(error instanceof GrammyError) || error.error_code !== 429) return undefined;
  return (error.parameters.retry_after ?? 1) * 1000;
}

function isNotModified(error: unknown): boolean {
  return error instanceof GrammyError && error.error_code === 400 && /message is not modified/i.test(error.description);
}

