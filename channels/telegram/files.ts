import { InputFile, type Api } from 'grammy';
import { BotError, type Attachment, type ConversationRef, type DeliveryReceipt, type DownloadedFile, type OutboundFile } from '../../src/core/index.js';
import { downloadError, readCapped } from '../shared/index.js';
import { targetOf } from './conversation-target.js';
import { toPlatformError } from './errors.js';

/** The Bot API serves files up to 20 MB through getFile; larger ones are refused before asking. */
export const TELEGRAM_DOWNLOAD_LIMIT = 20 * 1024 * 1024;

export interface TelegramFiles {
  download(attachment: Attachment, options: { maxBytes: number; signal?: AbortSignal }): Promise<DownloadedFile>;
  send(to: ConversationRef, file: OutboundFile): Promise<DeliveryReceipt>;
}

/** Files in and out: `getFile` then `{apiRoot}/file/bot<token>/<file_path>`; `sendPhoto` / `sendDocument` with an InputFile. */
export function createTelegramFiles(api: Api, apiRoot: string, token: string): TelegramFiles {
  return {
    async download(attachment, { maxBytes, signal }) {
      const cap = Math.min(maxBytes, TELEGRAM_DOWNLOAD_LIMIT);
      const what = attachment.fileName ?? `the ${attachment.kind}`;
      if (attachment.size !== undefined && attachment.size > cap) throw new BotError('too-large', `${what} is larger than ${cap} bytes`);
      let filePath: string | undefined;
      try {
        filePath = (await api.getFile(attachment.ref)).file_path;
      } catch (error) {
        const platformError = toPlatformError(error, 'getFile');
        if (/file is too big/i.test(platformError.message)) throw new BotError('too-large', `${what} is over the Bot API's 20 MB download limit`, { cause: error });
        // "wrong file_id" and the like: a retry cannot change Telegram's mind
        throw platformError.isRetryable ? platformError : new BotError('not-found', `${what} is no longer available from Telegram`, { cause: error });
      }
      if (!filePath) throw new BotError('not-found', `${what} is no longer available from Telegram`);
      const response = await fetch(`${apiRoot}/file/bot${token}/${filePath}`, { ...(signal ? { signal } : {}) });
      if (!response.ok) throw downloadError(response.status, what);
      const bytes = await readCapped(response, cap, what);
      return { bytes, fileName: attachment.fileName ?? filePath.split('/').at(-1) ?? 'file' };
    },
    async send(to, file) {
      const { chat_id: chatId, ...thread } = targetOf(to);
      const input = new InputFile(file.bytes, file.fileName);
      const options = { ...thread, ...(file.caption ? { caption: file.caption.slice(0, 1024) } : {}) };
      const method = file.kind === 'photo' ? 'sendPhoto' : 'sendDocument';
      try {
        const message = file.kind === 'photo' ? await api.sendPhoto(chatId, input, options) : await api.sendDocument(chatId, input, options);
        return { messageIds: [String(message.message_id)] };
      } catch (error) {
        throw toPlatformError(error, method);
      }
    },
  };
}
