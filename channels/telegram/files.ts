import { InputFile } from 'grammy';
import { BotError, type Attachment, type ConversationRef, type DeliveryProgress, type DeliveryReceipt, type DownloadedFile, type OutboundFile } from '../../src/core/index.js';
import { deliverParts, downloadError, readCapped } from '../shared/index.js';
import { targetOf } from './conversation-target.js';
import { toPlatformError } from './errors.js';
import type { MessageIdWatermark } from './message-ids.js';
import type { CallSignal, TelegramApis } from './outbound.js';
import { uploadTimeoutMs } from './send-timeouts.js';
import { sameText, type SentProbe } from './sent-probe.js';

/** The Bot API serves files up to 20 MB through getFile; larger ones are refused before asking. */
export const TELEGRAM_DOWNLOAD_LIMIT = 20 * 1024 * 1024;

export interface TelegramFiles {
  download(attachment: Attachment, options: { maxBytes: number; signal?: AbortSignal }): Promise<DownloadedFile>;
  send(to: ConversationRef, file: OutboundFile, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
}

/** Files in and out: `getFile` then `{apiRoot}/file/bot<token>/<file_path>`; `sendPhoto` / `sendDocument` with an InputFile. */
export function createTelegramFiles(apis: TelegramApis, apiRoot: string, token: string, watermark: MessageIdWatermark, probe: SentProbe): TelegramFiles {
  const { api } = apis;
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
    async send(to, file, progress) {
      const { chat_id: chatId, ...thread } = targetOf(to);
      const caption = file.caption ? file.caption.slice(0, 1024) : undefined;
      const method = file.kind === 'photo' ? 'sendPhoto' : 'sendDocument';
      // a recorded file's upload is aborted at its timeout, which its intent's deadline includes
      const timeoutMs = uploadTimeoutMs(file.bytes.length);
      const messageIds = await deliverParts([file], progress, {
        hint: () => watermark.hint(to),
        ...(progress ? { sendTimeoutMs: timeoutMs } : {}),
        async send() {
          const input = new InputFile(file.bytes, file.fileName);
          const options = { ...thread, ...(caption ? { caption } : {}) };
          try {
            const client = progress ? apis.createApi : api;
            const signal = (progress ? AbortSignal.timeout(timeoutMs) : undefined) as CallSignal;
            const message = file.kind === 'photo' ? await client.sendPhoto(chatId, input, options, signal) : await client.sendDocument(chatId, input, options, signal);
            watermark.saw(chatId, message.message_id);
            return String(message.message_id);
          } catch (error) {
            throw toPlatformError(error, method);
          }
        },
        async settle(_file, _index, doubt) {
          // the same kind of message, with the same caption (and file name for a document)
          return probe.settle(to, doubt.hint, (message) =>
            (file.kind === 'photo' ? message.photo !== undefined : message.document?.file_name === file.fileName) && (caption === undefined ? message.caption === undefined : sameText(message.caption, caption)),
          );
        },
      });
      return { messageIds };
    },
  };
}
