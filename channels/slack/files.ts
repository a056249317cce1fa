import type { WebClient } from '@slack/web-api';
import { BotError, type Attachment, type ConversationRef, type DeliveryProgress, type DeliveryReceipt, type DownloadedFile, type OutboundFile } from '../../src/core/index.js';
import { deliverParts, downloadError, readCapped } from '../shared/index.js';
import { slackErrorCode, toPlatformError } from './errors.js';
import type { SlackClients } from './web-clients.js';

/** The bytes' POST to the upload URL is aborted after this plus their time at 1 MB/s (it shares nothing yet). */
const UPLOAD_BASE_TIMEOUT_MS = 15_000;
const UPLOAD_SLOWEST_BYTES_PER_SECOND = 1024 * 1024;

export interface SlackFiles {
  download(attachment: Attachment, options: { maxBytes: number; signal?: AbortSignal }): Promise<DownloadedFile>;
  send(to: ConversationRef, file: OutboundFile, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
}

/**
 * Files in: `url_private_download` with the bot token as a Bearer header, only on Slack's own file host (or the
 * configured API host), so a token never leaves for another server. Files out: files.getUploadURLExternal →
 * POST the bytes → files.completeUploadExternal, which posts the message; the file's id is recorded before that
 * last step, so a takeover asks `files.info` whether the file was shared into the conversation.
 */
export function createSlackFiles(clients: SlackClients, botToken: string, apiUrl: string): SlackFiles {
  // never repeated on a failure: completing the upload shares the file (a message)
  const client = clients.posting;
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
    async send(to, file, progress) {
      const messageIds = await deliverParts([file], progress, {
        // the upload posts nothing yet: the intent names the file that completing it will share
        hint: async () => ({ file: await upload(client, file) }),
        // completing is one call, aborted at the client's timeout: the intent records the deadline
        sendTimeoutMs: clients.timeoutMs,
        async send(_file, _index, hint) {
          try {
            await client.files.completeUploadExternal({
              files: [{ id: String(hint.file), title: file.fileName }],
              channel_id: to.chatId,
              ...(to.threadId !== undefined ? { thread_ts: to.threadId } : {}),
              ...(file.caption ? { initial_comment: file.caption } : {}),
            });
          } catch (error) {
            // with a recorded intent, a retry asks files.info whether the file was shared
            throw toPlatformError(error, 'files.completeUploadExternal', { mayHaveActed: progress === undefined });
          }
          return String(hint.file);
        },
        async settle(_file, _index, doubt) {
          const fileId = String(doubt.hint.file);
          try {
            const info = await client.files.info({ file: fileId });
            const shares = { ...info.file?.shares?.public, ...info.file?.shares?.private };
            return (shares[to.chatId]?.length ?? 0) > 0 ? { id: fileId, resolution: 'found' } : { resolution: 'not_sent' };
          } catch (error) {
            // never completed, or gone with its upload: not shared
            if (slackErrorCode(error) === 'file_not_found' || slackErrorCode(error) === 'file_deleted') return { resolution: 'not_sent' };
            throw toPlatformError(error, 'files.info');
          }
        },
      });
      return { messageIds };
    },
  };
}

/** Steps 1 and 2 of Slack's upload: a URL for the file, then its bytes; the file's id. Nothing is shared yet. */
async function upload(client: WebClient, file: OutboundFile): Promise<string> {
  let target;
  try {
    target = await client.files.getUploadURLExternal({ filename: file.fileName, length: file.bytes.length });
  } catch (error) {
    throw toPlatformError(error, 'files.getUploadURLExternal');
  }
  if (!target.upload_url || !target.file_id) throw new BotError('platform', 'Slack files.getUploadURLExternal answered without an upload URL');
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file.bytes)]), file.fileName);
  const timeoutMs = UPLOAD_BASE_TIMEOUT_MS + Math.ceil((file.bytes.length / UPLOAD_SLOWEST_BYTES_PER_SECOND) * 1000);
  let response: Response;
  try {
    response = await fetch(target.upload_url, { method: 'POST', body: form, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new BotError('platform', `Slack file upload failed: ${(error as Error).name === 'TimeoutError' ? 'timeout' : 'network error'}`, { cause: error, isRetryable: true });
  }
  await response.body?.cancel().catch(() => undefined);
  if (!response.ok) throw new BotError('platform', `Slack file upload failed: HTTP ${response.status}`, { isRetryable: response.status >= 500 });
  return target.file_id;
}
