import type { LazyClient } from './client.js';
import { BotError, type Attachment, type ConversationRef, type DeliveryProgress, type DeliveryReceipt, type DownloadedFile, type OutboundFile } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { callFeishu } from './api-call.js';
import { resourceRefOf } from './attachments.js';
import { FeishuApiError } from './errors.js';
import type { OutgoingMessage } from './messages-api.js';
import type { FeishuOutbound } from './outbound.js';

/** Feishu's own limits: images up to 10 MB go as image messages, files up to 30 MB. */
const IMAGE_UPLOAD_LIMIT = 10 * 1024 * 1024;
/** Codes for a resource that is gone or not the bot's to read (withdrawn message, expired, wrong key). */
const GONE_CODES = new Set([234003, 234004, 234009, 234043, 230011]);
/** `file_type` of im.file.create: the named document types, `stream` for anything else. */
const FILE_TYPES: Record<string, string> = { pdf: 'pdf', doc: 'doc', docx: 'doc', xls: 'xls', xlsx: 'xls', ppt: 'ppt', pptx: 'ppt', mp4: 'mp4', opus: 'opus' };

export interface FeishuFiles {
  download(attachment: Attachment, options: { maxBytes: number; signal?: AbortSignal }): Promise<DownloadedFile>;
  send(to: ConversationRef, file: OutboundFile, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
}

/**
 * Files in through `im.messageResource.get`, out through `im.image.create` / `im.file.create` and an image / file
 * reply (then the caption as a text reply), each under its part's `uuid`: an upload posts nothing, so a takeover
 * uploads again and Feishu keeps the reply the dead worker may have sent.
 */
export function createFeishuFiles(client: LazyClient, outbound: FeishuOutbound, logger: Logger): FeishuFiles {
  return {
    async download(attachment, { maxBytes }) {
      const what = attachment.fileName ?? `the ${attachment.kind}`;
      const ref = resourceRefOf(attachment);
      let resource;
      try {
        resource = await (await client()).im.messageResource.get({ path: { message_id: ref.messageId, file_key: ref.fileKey }, params: { type: ref.type } });
      } catch (error) {
        const failure = error instanceof FeishuApiError ? error : undefined;
        if (failure && ((failure.code !== undefined && GONE_CODES.has(failure.code)) || failure.status === 404 || failure.status === 400)) {
          throw new BotError('not-found', `${what} is no longer available from Feishu`, { cause: error });
        }
        throw new BotError('platform', `${what} could not be downloaded from Feishu`, { cause: error, isRetryable: failure?.isTransient ?? true });
      }
      const chunks: Buffer[] = [];
      let total = 0;
      const stream = resource.getReadableStream();
      for await (const chunk of stream) {
        total += (chunk as Buffer).length;
        if (total > maxBytes) {
          stream.destroy();
          throw new BotError('too-large', `${what} is larger than ${maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      return { bytes: Buffer.concat(chunks), ...(attachment.fileName ? { fileName: attachment.fileName } : {}) };
    },
    async send(to, file, progress) {
      const parts = file.caption ? 2 : 1;
      if (progress && progress.delivered.length >= parts) return { messageIds: progress.delivered };
      const asImage = file.kind === 'photo' && file.bytes.length <= IMAGE_UPLOAD_LIMIT;
      let message: OutgoingMessage;
      if (asImage) {
        const answer = await callFeishu(logger, { method: 'im.image.create', idempotent: false }, async () => {
          const data = await (await client()).im.image.create({ data: { image_type: 'message', image: file.bytes } });
          return { code: 0, ...data };
        });
        if (!answer.image_key) throw new BotError('platform', 'Feishu im.image.create answered without an image_key');
        message = { msgType: 'image', content: JSON.stringify({ image_key: answer.image_key }) };
      } else {
        const extension = file.fileName.split('.').at(-1)?.toLowerCase() ?? '';
        const answer = await callFeishu(logger, { method: 'im.file.create', idempotent: false }, async () => {
          const data = await (await client()).im.file.create({ data: { file_type: (FILE_TYPES[extension] ?? 'stream') as 'stream', file_name: file.fileName, file: file.bytes } });
          return { code: 0, ...data };
        });
        if (!answer.file_key) throw new BotError('platform', 'Feishu im.file.create answered without a file_key');
        message = { msgType: 'file', content: JSON.stringify({ file_key: answer.file_key }) };
      }
      const caption: OutgoingMessage[] = file.caption ? [{ msgType: 'text', content: JSON.stringify({ text: file.caption }) }] : [];
      return outbound.deliver(to, [message, ...caption], progress);
    },
  };
}
