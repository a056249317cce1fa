import type { WebClient } from '@slack/web-api';
import { BotError, type Attachment, type ConversationRef, type DeliveryReceipt, type DownloadedFile, type OutboundFile } from '../../src/core/index.js';
import { downloadError, readCapped } from '../shared/index.js';
import { toPlatformError } from './errors.js';

export interface SlackFiles {
  download(attachment: Attachment, options: { maxBytes: number; signal?: AbortSignal }): Promise<DownloadedFile>;
  send(to: ConversationRef, file: OutboundFile): Promise<DeliveryReceipt>;
}

/**
 * Files in: `url_private_download` with the bot token as a Bearer header, only on Slack's own file host (or the
 * configured API host), so a token never leaves for another server. Files out: WebClient `filesUploadV2`
 * (files.getUploadURLExternal → POST the bytes → files.completeUploadExternal).
 */
export function createSlackFiles(client: WebClient, botToken: string, apiUrl: string): SlackFiles {
  const trustedHosts = new Set(['files.slack.com', new URL(apiUrl).host]);
  return {
    async download(attachment, { maxBytes, signal }) {
      const what = attachment.fileName ?? 'the file';
      const url = new URL(attachment.ref);
      if (url.protocol === 'unavailable:') throw new BotError('not-found', `${what} is not available to the bot (hidden, deleted or shared from another workspace)`);
      if (!trustedHosts.has(url.host)) throw new BotError('not-found', `${what} is not hosted by Slack`);
      // fetch keeps the Authorization header on same-origin redirects only
      const response = await fetch(url, { headers: { authorization: `Bearer ${botToken}` }, ...(signal ? { signal } : {}) });
      if (!response.ok) throw downloadError(response.status, what);
      // without files:read Slack answers 200 with its sign-in page instead of the file
      if ((response.headers.get('content-type') ?? '').startsWith('text/html') && attachment.mimeType !== 'text/html') {
        await response.body?.cancel().catch(() => undefined);
        throw new BotError('not-found', `${what}: Slack answered with a sign-in page (is the files:read scope granted?)`);
      }
      const bytes = await readCapped(response, maxBytes, what);
      return { bytes, ...(attachment.fileName ? { fileName: attachment.fileName } : {}) };
    },
    async send(to, file) {
      try {
        const common = { file: file.bytes, filename: file.fileName, title: file.fileName, ...(file.caption ? { initial_comment: file.caption } : {}) };
        const result = await client.filesUploadV2(
          to.threadId !== undefined ? { ...common, channel_id: to.chatId, thread_ts: to.threadId } : { ...common, channel_id: to.chatId },
        );
        const ids = (result.files ?? []).flatMap((completion) => (completion.files ?? []).map((uploaded) => uploaded.id)).filter((id): id is string => typeof id === 'string');
        return { messageIds: ids };
      } catch (error) {
        throw toPlatformError(error, 'filesUploadV2');
      }
    },
  };
}
