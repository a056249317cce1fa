import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Update } from 'grammy/types';
import { parseTelegramHtml } from './telegram-html.js';
import { createUpdateFactory } from './telegram-updates.js';

export { parseTelegramHtml } from './telegram-html.js';
export { createUpdateFactory } from './telegram-updates.js';

/** A local stand-in for the Telegram Bot API (https://core.telegram.org/bots/api), driven by the real grammY. */
export interface TelegramCall {
  method: string;
  params: Record<string, unknown>;
  at: number;
  /** true when the double answered with an error (failNext, validation). */
  failed: boolean;
}

export interface TelegramFailure {
  status: number;
  description: string;
  retry_after?: number;
  times?: number;
  /** Let this many calls of the method succeed first. */
  after?: number;
}

/** A message the bot sent, as the chat shows it now. */
export interface TelegramStoredMessage {
  chatId: number | string;
  messageId: number;
  threadId?: number;
  /** What the reader sees (entities parsed). */
  text: string;
  /** The text as last sent or edited, and its parse mode. */
  raw: string;
  parseMode: string | undefined;
  edits: number;
  deleted: boolean;
  /** The inline keyboard the message carries (approval requests), as last sent or edited. */
  replyMarkup?: unknown;
}

type ApiAnswer = { ok: true; result: unknown } | { ok: false; error_code: number; description: string; parameters?: { retry_after: number } };
type Waiter = { offset: number; limit: number; answer: (updates: Update[] | 'conflict') => void };


export async function startTelegramDouble(options: { token?: string; botUsername?: string } = {}) {
  const token = options.token ?? '123456789:TEST-double-token';
  const botUsername = options.botUsername ?? 'TestDoubleBot';
  const botId = Number(token.split(':')[0]);
  const calls: TelegramCall[] = [];
  /** Every message the bot sent, by `${chat_id}:${message_id}`. */
  const messages = new Map<string, TelegramStoredMessage>();
  const failures = new Map<string, TelegramFailure[]>();
  const queuedUpdates: Update[] = [];
  /** File paths requested from the file route, in order. */
  const downloads: string[] = [];
  const waiters = new Set<Waiter>();
  let conflicts = 0;
  let commands: unknown[] = [];
  /** Files users "sent" (served by getFile and the file route), by file_id. */
  const files = new Map<string, { bytes: Buffer; path: string; expired: boolean }>();
  /** Photos and documents the bot sent (sendPhoto / sendDocument, multipart). */
  const uploads: TelegramUpload[] = [];
  let nextFileId = 1;
  let nextMessageId = 1;
  let nextUpdateId = 1;

  function pendingUpdates(offset: number, limit: number): Update[] {
    return queuedUpdates.filter((update) => update.update_id >= offset).slice(0, limit);
  }

  function sentMessage(params: Record<string, unknown>, text: string): Record<string, unknown> & { message_id: number } {
    return {
      message_id: nextMessageId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: params.chat_id, type: Number(params.chat_id) < 0 ? 'supergroup' : 'private' },
      from: { id: botId, is_bot: true, first_name: botUsername, username: botUsername },
      text,
      ...(params.message_thread_id !== undefined ? { message_thread_id: params.message_thread_id, is_topic_message: true } : {}),
    };
  }

  /** Text checks shared by sendMessage and editMessageText: HTML parsing (when asked for) and the length limit. */
  function checkText(params: Record<string, unknown>): { text: string } | ApiAnswer {
    const raw = typeof params.text === 'string' ? params.text : '';
    const parsed = params.parse_mode === 'HTML' ? parseTelegramHtml(raw) : { text: raw };
    if ('error' in parsed) return failure(400, `Bad Request: can't parse entities: ${parsed.error}`);
    if (parsed.text.trim() === '') return failure(400, 'Bad Request: message text is empty');
    if (parsed.text.length > 4096) return failure(400, 'Bad Request: message is too long');
    return { text: parsed.text };
  }

  async function answer(method: string, params: Record<string, unknown>, clientGone: AbortSignal): Promise<ApiAnswer> {
    switch (method) {
      case 'getMe':
        return success({ id: botId, is_bot: true, first_name: botUsername, username: botUsername, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false });
      case 'sendMessage': {
        if (params.chat_id === undefined) return failure(400, 'Bad Request: chat not found');
        const checked = checkText(params);
        if ('ok' in checked) return checked;
        const sent = sentMessage(params, checked.text);
        messages.set(`${String(params.chat_id)}:${String(sent.message_id)}`, {
          chatId: params.chat_id as number | string,
          messageId: sent.message_id as number,
          ...(params.message_thread_id !== undefined ? { threadId: Number(params.message_thread_id) } : {}),
          text: checked.text,
          raw: String(params.text),
          parseMode: typeof params.parse_mode === 'string' ? params.parse_mode : undefined,
          edits: 0,
          deleted: false,
          ...(params.reply_markup !== undefined ? { replyMarkup: params.reply_markup } : {}),
        });
        return success(sent);
      }
      case 'editMessageText': {
        if (params.chat_id === undefined) return failure(400, 'Bad Request: chat not found');
        const stored = messages.get(`${String(params.chat_id)}:${String(params.message_id)}`);
        if (stored === undefined || stored.deleted) return failure(400, 'Bad Request: message to edit not found');
        const checked = checkText(params);
        if ('ok' in checked) return checked;
        const parseMode = typeof params.parse_mode === 'string' ? params.parse_mode : undefined;
        if (stored.raw === params.text && stored.parseMode === parseMode) {
          return failure(400, 'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message');
        }
        Object.assign(stored, { text: checked.text, raw: String(params.text), parseMode, edits: stored.edits + 1 });
        if (params.reply_markup !== undefined) stored.replyMarkup = params.reply_markup;
        return success({ ...sentMessage(params, checked.text), message_id: stored.messageId, edit_date: Math.floor(Date.now() / 1000) });
      }
      case 'deleteMessage': {
        const stored = messages.get(`${String(params.chat_id)}:${String(params.message_id)}`);
        if (stored === undefined || stored.deleted) return failure(400, 'Bad Request: message to delete not found');
        stored.deleted = true;
        return success(true);
      }
      case 'getUpdates': {
        const offset = Number(params.offset ?? 0);
        const limit = Number(params.limit ?? 100);
        queuedUpdates.splice(0, queuedUpdates.length, ...queuedUpdates.filter((update) => update.update_id >= offset));
        // as Telegram does: a new getUpdates ends the one still waiting with 409 (two pollers on one token)
        for (const waiter of [...waiters]) {
          conflicts += 1;
          waiter.answer('conflict');
        }
        const ready = pendingUpdates(offset, limit);
        if (ready.length > 0 || !params.timeout) return success(ready);
        const polled = await longPoll(offset, limit, Number(params.timeout) * 1000, clientGone);
        return polled === 'conflict' ? failure(409, 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running') : success(polled);
      }
      case 'getFile': {
        const file = files.get(String(params.file_id));
        if (file === undefined) return failure(400, 'Bad Request: invalid file_id');
        if (file.bytes.length > 20 * 1024 * 1024) return failure(400, 'Bad Request: file is too big');
        return success({ file_id: params.file_id, file_unique_id: `u-${String(params.file_id)}`, file_size: file.bytes.length, file_path: file.path });
      }
      case 'sendPhoto':
      case 'sendDocument': {
        const field = method === 'sendPhoto' ? 'photo' : 'document';
        const upload = params[field];
        if (params.chat_id === undefined) return failure(400, 'Bad Request: chat not found');
        if (!(upload instanceof UploadedFile)) return failure(400, `Bad Request: there is no ${field} in the request`);
        const sent = sentMessage(params, '');
        uploads.push({ method, chatId: params.chat_id as number | string, fileName: upload.name, bytes: upload.bytes, caption: typeof params.caption === 'string' ? params.caption : undefined, messageId: sent.message_id });
        return success(sent);
      }
      case 'setMyCommands':
        commands = Array.isArray(params.commands) ? params.commands : [];
        return success(true);
      case 'getMyCommands':
        return success(commands);
      default:
        // sendChatAction, setWebhook, deleteWebhook and anything else: recorded, accepted
        return success(true);
    }
  }

  function longPoll(offset: number, limit: number, timeoutMs: number, clientGone: AbortSignal): Promise<Update[] | 'conflict'> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        offset,
        limit,
        answer: (updates) => {
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(updates);
        },
      };
      const timer = setTimeout(() => waiter.answer([]), timeoutMs);
      clientGone.addEventListener('abort', () => waiter.answer([]));
      waiters.add(waiter);
    });
  }

  const server = createServer((request, response) => {
    void handle(request, response);
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://double');
    const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (fileMatch !== null) return serveFile(fileMatch[1]!, decodeURIComponent(fileMatch[2]!), response);
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    const params = { ...Object.fromEntries(url.searchParams), ...(await readParams(request)) };
    let reply: ApiAnswer;
    if (match === null || match[1] !== token) {
      reply = failure(match === null ? 404 : 401, match === null ? 'Not Found' : 'Unauthorized');
    } else {
      const method = match[2] as string;
      const call: TelegramCall = { method, params, at: Date.now(), failed: false };
      calls.push(call);
      const clientGone = new AbortController();
      response.once('close', () => clientGone.abort());
      const planned = takeFailure(method);
      reply = planned ?? (await answer(method, params, clientGone.signal));
      call.failed = !reply.ok;
      // a long poll whose client went away (aborted on stop) has no one to answer
      if (clientGone.signal.aborted) return;
    }
    response.writeHead(reply.ok ? 200 : reply.error_code, { 'content-type': 'application/json' });
    response.end(JSON.stringify(reply));
  }

  /** `GET /file/bot<token>/<file_path>`, as api.telegram.org serves downloads (404 once a file "expired"). */
  function serveFile(fileToken: string, path: string, response: ServerResponse): void {
    downloads.push(path);
    const file = [...files.values()].find((candidate) => candidate.path === path);
    if (fileToken !== token || file === undefined || file.expired) {
      response.writeHead(fileToken !== token ? 401 : 404, { 'content-type': 'application/json' });
      response.end(JSON.stringify(failure(fileToken !== token ? 401 : 404, fileToken !== token ? 'Unauthorized' : 'Not Found')));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(file.bytes.length) });
    response.end(file.bytes);
  }

  function takeFailure(method: string): ApiAnswer | undefined {
    const planned = failures.get(method)?.[0];
    if (planned === undefined) return undefined;
    if ((planned.after ?? 0) > 0) {
      planned.after! -= 1;
      return undefined;
    }
    planned.times = (planned.times ?? 1) - 1;
    if (planned.times <= 0) failures.get(method)?.shift();
    return failure(planned.status, planned.description, planned.retry_after);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    token,
    botId,
    botUsername,
    calls,
    callsOf: (method: string) => calls.filter((call) => call.method === method),
    /** getUpdates calls ended with 409 because another one came in meanwhile (two pollers on one token). */
    get conflicts() {
      return conflicts;
    },
    messages,
    /** The messages a reader of the chat sees now (not deleted), oldest first. */
    visibleMessages: (chatId: number | string) =>
      [...messages.values()].filter((message) => String(message.chatId) === String(chatId) && !message.deleted).sort((a, b) => a.messageId - b.messageId),
    makeUpdate: createUpdateFactory({ id: botId, username: botUsername }),
    /** Queues an update for getUpdates (an update_id is assigned when missing) and wakes waiting long polls. */
    pushUpdate(update: Partial<Update> & Omit<Update, 'update_id'>): Update {
      const full = { ...update, update_id: update.update_id ?? nextUpdateId } as Update;
      nextUpdateId = Math.max(nextUpdateId, full.update_id) + 1;
      queuedUpdates.push(full);
      for (const waiter of waiters) {
        const ready = pendingUpdates(waiter.offset, waiter.limit);
        if (ready.length > 0) waiter.answer(ready);
      }
      return full;
    },
    files,
    uploads,
    downloads,
    /** Stores a file as if a user had sent it; returns the file_id that getFile knows it by. */
    addFile(bytes: Buffer, extension = 'bin'): string {
      const fileId = `file-${nextFileId++}`;
      files.set(fileId, { bytes, path: `documents/${fileId}.${extension}`, expired: false });
      return fileId;
    },
    /** The file route answers 404 for it from now on (Telegram's links last about an hour). */
    expireFile(fileId: string): void {
      const file = files.get(fileId);
      if (file) file.expired = true;
    },
    failNext(method: string, failureToPlan: TelegramFailure): void {
      failures.set(method, [...(failures.get(method) ?? []), { ...failureToPlan }]);
    },
    async close(): Promise<void> {
      for (const waiter of waiters) waiter.answer([]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type TelegramDouble = Awaited<ReturnType<typeof startTelegramDouble>>;

function success(result: unknown): ApiAnswer {
  return { ok: true, result };
}

function failure(status: number, description: string, retryAfter?: number): ApiAnswer {
  return { ok: false, error_code: status, description, ...(retryAfter !== undefined ? { parameters: { retry_after: retryAfter } } : {}) };
}

async function readParams(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  if (body === '') return {};
  const type = request.headers['content-type'] ?? '';
  if (type.includes('application/json')) return JSON.parse(body) as Record<string, unknown>;
  if (type.includes('multipart/form-data')) return readMultipart(Buffer.concat(chunks), type);
  if (type.includes('application/x-www-form-urlencoded')) {
    return Object.fromEntries([...new URLSearchParams(body)].map(([key, value]) => [key, parseFormValue(value)]));
  }
  return {};
}

/** A file part of a multipart request (grammY's InputFile uploads). */
export class UploadedFile {
  constructor(
    readonly name: string,
    readonly bytes: Buffer,
  ) {}
}

export interface TelegramUpload {
  method: string;
  chatId: number | string;
  fileName: string;
  bytes: Buffer;
  caption: string | undefined;
  messageId: number;
}

/**
 * multipart/form-data as the Bot API reads it: plain fields (JSON-decoded like form values) and files; a
 * field `attach://<name>` points at the file part called `<name>`.
 */
async function readMultipart(body: Buffer, contentType: string): Promise<Record<string, unknown>> {
  const form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
  const parts = new Map<string, unknown>();
  for (const [key, value] of form.entries()) {
    parts.set(key, typeof value === 'string' ? parseFormValue(value) : new UploadedFile(value.name, Buffer.from(await value.arrayBuffer())));
  }
  const params: Record<string, unknown> = {};
  for (const [key, value] of parts) {
    params[key] = typeof value === 'string' && value.startsWith('attach://') ? parts.get(value.slice('attach://'.length)) : value;
  }
  return params;
}

/** Form fields carry JSON-serialized objects and numbers, as the Bot API accepts them. */
function parseFormValue(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
