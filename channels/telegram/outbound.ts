import { GrammyError, type Api } from 'grammy';
import type { ConversationRef, DeliveryProgress, DeliveryReceipt } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { deliverParts, type PartSender } from '../shared/index.js';
import { targetOf } from './conversation-target.js';
import { isParseEntitiesError, toPlatformError } from './errors.js';
import { markdownToTelegramHtml } from './format.js';
import { escapeHtml, htmlToPlainText } from './html-text.js';
import type { MessageIdWatermark } from './message-ids.js';
import { sameText, type SentProbe } from './sent-probe.js';
import { TELEGRAM_SEND_TIMEOUTS } from './send-timeouts.js';
import { splitTelegramHtml, TELEGRAM_MESSAGE_LIMIT } from './split.js';

const NO_LINK_PREVIEWS = { link_preview_options: { is_disabled: true } };
/** grammY types a call's signal as the abort-controller polyfill's; Node's own is what it gets and passes to fetch. */
export type CallSignal = Parameters<Api['sendMessage']>[3];

/** A message already in the chat that becomes the first part (a live reply's preview), and how to put a part into it. */
export interface FirstPartInPlace {
  messageId: number;
  edit(html: string): Promise<void>;
}

export interface TelegramOutbound {
  send(to: ConversationRef, markdown: string, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
  sendNotice(to: ConversationRef, text: string, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
  /**
   * Already rendered HTML chunks (see `renderAnswerChunks`), in order, skipping those `progress` says are
   * delivered; with `first`, chunk 0 is edited into that message instead of being sent.
   */
  sendHtmlChunks(to: ConversationRef, chunks: string[], progress?: DeliveryProgress, first?: FirstPartInPlace): Promise<DeliveryReceipt>;
  /** Edits a message to this HTML chunk; "not modified" counts as done, HTML Telegram refuses goes as plain text. */
  editHtml(to: ConversationRef, messageId: number, html: string): Promise<void>;
}

/** An answer's Markdown → the HTML messages that carry it; deterministic, so a resumed delivery can skip chunks by count. */
export function renderAnswerChunks(markdown: string): string[] {
  return splitTelegramHtml(markdownToTelegramHtml(markdown)).filter((chunk) => htmlToPlainText(chunk).trim() !== '');
}

/** The Bot API client with every retry, and the one for recorded parts (429s only: see installRateLimitRetries). */
export interface TelegramApis {
  api: Api;
  createApi: Api;
}

export function createOutbound(apis: TelegramApis, logger: Logger, watermark: MessageIdWatermark, probe: SentProbe): TelegramOutbound {
  const { api } = apis;
  async function sendText(to: ConversationRef, text: string, html: boolean, recorded = false, signal?: AbortSignal): Promise<string> {
    const { chat_id: chatId, ...thread } = targetOf(to);
    try {
      const options = { ...thread, ...(html ? { parse_mode: 'HTML' as const } : {}), ...NO_LINK_PREVIEWS };
      const message = await (recorded ? apis.createApi.sendMessage(chatId, text, options, signal as CallSignal) : api.sendMessage(chatId, text, options));
      watermark.saw(chatId, message.message_id);
      return String(message.message_id);
    } catch (error) {
      throw toPlatformError(error, 'sendMessage');
    }
  }

  async function sendHtmlChunk(to: ConversationRef, chunk: string, recorded: boolean, signal?: AbortSignal): Promise<string> {
    try {
      return await sendText(to, chunk, true, recorded, signal);
    } catch (error) {
      if (!isParseEntitiesError((error as Error).cause)) throw error;
      // our renderer should never produce this; the reader still gets the words, without formatting
      logger.warn({ chatId: to.chatId, error: (error as Error).message }, 'telegram rejected the HTML, resending as plain text');
      return sendText(to, plainFallback(chunk), false, recorded, signal);
    }
  }

  async function editHtml(to: ConversationRef, messageId: number, html: string): Promise<void> {
    const { chat_id: chatId } = targetOf(to);
    try {
      await api.editMessageText(chatId, messageId, html, { parse_mode: 'HTML', ...NO_LINK_PREVIEWS });
    } catch (error) {
      if (isNotModified(error)) return;
      if (!isParseEntitiesError(error)) throw toPlatformError(error, 'editMessageText');
      logger.warn({ chatId: to.chatId, error: (error as Error).message }, 'telegram rejected the HTML, editing in plain text');
      try {
        await api.editMessageText(chatId, messageId, plainFallback(html), NO_LINK_PREVIEWS);
      } catch (plainError) {
        if (!isNotModified(plainError)) throw toPlatformError(plainError, 'editMessageText');
      }
    }
  }

  /** Parts of text: each a new message (or, with `first`, the first one edited into a message already there). */
  function textParts(to: ConversationRef, html: boolean, recorded: boolean, first?: FirstPartInPlace): PartSender<string> {
    // a recorded part's sendMessage (its rate-limit retries and HTML fallback included) is aborted at this
    const timeoutMs = TELEGRAM_SEND_TIMEOUTS.messageMs;
    return {
      hint: (_chunk, index) => (index === 0 && first ? { edit: first.messageId } : watermark.hint(to)),
      ...(recorded ? { sendTimeoutMs: timeoutMs } : {}),
      async send(chunk, index) {
        if (index === 0 && first) {
          await first.edit(chunk);
          return String(first.messageId);
        }
        const signal = recorded ? AbortSignal.timeout(timeoutMs) : undefined;
        return html ? sendHtmlChunk(to, chunk, recorded, signal) : sendText(to, chunk, false, recorded, signal);
      },
      async settle(chunk, _index, doubt) {
        // the part was to be edited into a message already there: editing again is harmless
        if (typeof doubt.hint.edit === 'number') {
          await (first?.edit(chunk) ?? editHtml(to, doubt.hint.edit, chunk));
          return { id: String(doubt.hint.edit), resolution: 'found' };
        }
        const readable = html ? [htmlToPlainText(chunk), plainFallback(chunk)] : [chunk];
        return probe.settle(to, doubt.hint, (message) => readable.some((text) => sameText(message.text, text)));
      },
    };
  }

  async function sendHtmlChunks(to: ConversationRef, chunks: string[], progress?: DeliveryProgress, first?: FirstPartInPlace): Promise<DeliveryReceipt> {
    return { messageIds: await deliverParts(chunks, progress, textParts(to, true, progress !== undefined, first)) };
  }

  return {
    sendHtmlChunks,
    editHtml,
    send: (to, markdown, progress) => sendHtmlChunks(to, renderAnswerChunks(markdown), progress),
    async sendNotice(to, text, progress) {
      // the same boundaries as formatted answers, counted in plain characters, sent as the plain text they stand for
      const chunks = splitTelegramHtml(escapeHtml(text), { measure: 'text' }).map((chunk) => htmlToPlainText(chunk)).filter((chunk) => chunk.trim() !== '');
      return { messageIds: await deliverParts(chunks, progress, textParts(to, false, progress !== undefined)) };
    },
  };
}

/** The chunk's text with link addresses kept, unless that no longer fits one message. */
export function plainFallback(chunk: string): string {
  const withLinks = htmlToPlainText(chunk, { withLinks: true });
  return withLinks.length <= TELEGRAM_MESSAGE_LIMIT ? withLinks : htmlToPlainText(chunk);
}

export function isNotModified(error: unknown): boolean {
  const cause = error instanceof GrammyError ? error : (error as { cause?: unknown } | undefined)?.cause;
  return cause instanceof GrammyError && cause.error_code === 400 && /message is not modified/i.test(cause.description);
}
