import type { Api } from 'grammy';
import type { ConversationRef, DeliveryProgress, DeliveryReceipt } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { targetOf } from './conversation-target.js';
import { isParseEntitiesError, toPlatformError } from './errors.js';
import { markdownToTelegramHtml } from './format.js';
import { escapeHtml, htmlToPlainText } from './html-text.js';
import { splitTelegramHtml, TELEGRAM_MESSAGE_LIMIT } from './split.js';

export interface TelegramOutbound {
  send(to: ConversationRef, markdown: string, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
  sendNotice(to: ConversationRef, text: string): Promise<DeliveryReceipt>;
  /** Already rendered HTML chunks (see `renderAnswerChunks`), in order, skipping those `progress` says are delivered. */
  sendHtmlChunks(to: ConversationRef, chunks: string[], progress?: DeliveryProgress): Promise<DeliveryReceipt>;
}

/** An answer's Markdown → the HTML messages that carry it; deterministic, so a resumed delivery can skip chunks by count. */
export function renderAnswerChunks(markdown: string): string[] {
  return splitTelegramHtml(markdownToTelegramHtml(markdown)).filter((chunk) => htmlToPlainText(chunk).trim() !== '');
}

export function createOutbound(api: Api, logger: Logger): TelegramOutbound {
  async function sendText(to: ConversationRef, text: string, html: boolean): Promise<string> {
    const { chat_id: chatId, ...thread } = targetOf(to);
    try {
      const message = await api.sendMessage(chatId, text, {
        ...thread,
        ...(html ? { parse_mode: 'HTML' as const } : {}),
        link_preview_options: { is_disabled: true },
      });
      return String(message.message_id);
    } catch (error) {
      throw toPlatformError(error, 'sendMessage');
    }
  }

  async function sendHtmlChunk(to: ConversationRef, chunk: string): Promise<string> {
    try {
      return await sendText(to, chunk, true);
    } catch (error) {
      if (!isParseEntitiesError((error as Error).cause)) throw error;
      // our renderer should never produce this; the reader still gets the words, without formatting
      logger.warn({ chatId: to.chatId, error: (error as Error).message }, 'telegram rejected the HTML, resending as plain text');
      return sendText(to, plainFallback(chunk), false);
    }
  }

  async function sendHtmlChunks(to: ConversationRef, chunks: string[], progress?: DeliveryProgress): Promise<DeliveryReceipt> {
    const messageIds = [...(progress?.delivered ?? [])];
    for (const chunk of chunks.slice(messageIds.length)) {
      messageIds.push(await sendHtmlChunk(to, chunk));
      await progress?.onDelivered([...messageIds]);
    }
    return { messageIds };
  }

  return {
    sendHtmlChunks,
    send: (to, markdown, progress) => sendHtmlChunks(to, renderAnswerChunks(markdown), progress),
    async sendNotice(to, text) {
      // the same boundaries as formatted answers, counted in plain characters, sent as the plain text they stand for
      const chunks = splitTelegramHtml(escapeHtml(text), { measure: 'text' }).map((chunk) => htmlToPlainText(chunk)).filter((chunk) => chunk.trim() !== '');
      const messageIds: string[] = [];
      for (const chunk of chunks) messageIds.push(await sendText(to, chunk, false));
      return { messageIds };
    },
  };
}

/** The chunk's text with link addresses kept, unless that no longer fits one message. */
export function plainFallback(chunk: string): string {
  const withLinks = htmlToPlainText(chunk, { withLinks: true });
  return withLinks.length <= TELEGRAM_MESSAGE_LIMIT ? withLinks : htmlToPlainText(chunk);
}
