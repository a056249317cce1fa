import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Update } from 'grammy/types';
import { parseTelegramHtml } from './telegram-html.js';
import { createTelegramChats, type TelegramStoredMessage } from './telegram-chats.js';
import { createUpdateFactory } from './telegram-updates.js';
import { readParams, UploadedFile, type TelegramUpload } from './telegram-request-body.js';
import { callHolds } from './call-holds.js';

export { parseTelegramHtml } from './telegram-html.js';
export { createUpdateFactory } from './telegram-updates.js';
export type { TelegramStoredMessage } from './telegram-chats.js';
export { UploadedFile, type TelegramUpload } from './telegram-request-body.js';

/** A local stand-in for the Telegram Bot API (https://core.telegram.org/bots/api), driven by the real grammY. */
export interface TelegramCall {
  method: string;
  params: Record<string, unknown>;
  at: number;
  /** true when the double answered with an error (failNext, validation). */
  failed: boolean;
  /** The client went away before the answer was written (an aborted request). */
  abandoned?: boolean;
  /** When the answer was written. */
  answeredAt?: number;
}

export interface TelegramFailure {
  status: number;
  description: string;
  retry_after?: number;
  times?: number;
  /** Let this many calls of the method succeed first. */
  after?: number;
  /** The call takes effect, then the failure is answered (a 5xx or a lost answer after Telegram posted). */
  committed?: boolean;
}

type ApiAnswer = { ok: true; result: unknown } | { ok: false; error_code: number; description: string; parameters?: { retry_after: number } };
type Waiter = { offset: number; limit: number; answer: (updates: Update[] | 'conflict') => void };


/** A topic created with createForumTopic (https://core.telegram.org/bots/api#forumtopic). */
export interface TelegramTopic {
  chatId: number | string;
  threadId: number;
  name: string;
  /** Names given by editForumTopic, oldest first. */
  renamed: string[];
}

export async function startTelegramDouble(options: { token?: string; botUsername?: string; topicsInPrivateChats?: boolean } = {}) {
  const token = options.token ?? '123456789:TEST-double-token';
  const botUsername = options.botUsername ?? 'TestDoubleBot';
  const botId = Number(token.split(':')[0]);
  const calls: TelegramCall[] = [];
  const chats = createTelegramChats({ id: botId, username: botUsername });
  const { messages } = chats;
  const failures = new Map<string, TelegramFailure[]>();
  /** Calls answered only after a pause, their effect already done (a reply lost in flight, a worker killed meanwhile). */
  const stalls = new Map<string, Array<{ ms: number; times: number }>>();
  /** Calls held on arrival, before they take effect, until the test lets them through (a request still on its way). */
  const holds = callHolds();
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
  let nextUpdateId = 1;
  /** Topics Telegram refuses to post into, by `chat_id:message_thread_id`, with the description it answers. */
  const refusedThreads = new Map<string, string>();
  /** Threaded mode (Bot API 9.3): getMe's has_topics_enabled, and createForumTopic in private chats. */
  let topicsInPrivateChats = options.topicsInPrivateChats === true;
  const topics: TelegramTopic[] = [];

  function pendingUpdates(offset: number, limit: number): Update[] {
    return queuedUpdates.filter((update) => update.update_id >= offset).slice(0, limit);
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
    if (params.message_thread_id !== undefined) {
      const refusal = refusedThreads.get(`${String(params.chat_id)}:${String(params.message_thread_id)}`);
      if (refusal !== undefined) return failure(400, refusal);
    }
    switch (method) {
      case 'getMe':
        return success({
          id: botId,
          is_bot: true,
          first_name: botUsername,
          username: botUsername,
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
          has_topics_enabled: topicsInPrivateChats,
          allows_users_to_create_topics: topicsInPrivateChats,
        });
      case 'createForumTopic': {
        // https://core.telegram.org/bots/api#createforumtopic: a forum supergroup, or a private chat in threaded mode
        const name = typeof params.name === 'string' ? params.name : '';
        if (params.chat_id === undefined) return failure(400, 'Bad Request: chat not found');
        if (name.length < 1 || name.length > 128) return failure(400, 'Bad Request: TOPIC_TITLE_EMPTY');
        if (Number(params.chat_id) > 0 && !topicsInPrivateChats) return failure(400, 'Bad Request: BOT_FORUM_CREATE_FORBIDDEN');
        // a topic's id is the id of the service message that opens it
        const topic: TelegramTopic = { chatId: params.chat_id as number | string, threadId: chats.allocate(params.chat_id as number | string), name, renamed: [] };
        topics.push(topic);
        return success({ message_thread_id: topic.threadId, name, icon_color: 0x6fb9f0 });
      }
      case 'editForumTopic': {
        const topic = topics.find((candidate) => String(candidate.chatId) === String(params.chat_id) && candidate.threadId === Number(params.message_thread_id));
        if (topic === undefined) return failure(400, 'Bad Request: message thread not found');
        if (typeof params.name === 'string') {
          if (params.name === topic.name) return failure(400, 'Bad Request: TOPIC_NOT_MODIFIED');
          topic.name = params.name;
          topic.renamed.push(params.name);
        }
        return success(true);
      }
      case 'sendMessage': {
        if (params.chat_id === undefined) return failure(400, 'Bad Request: chat not found');
        const checked = checkText(params);
        if ('ok' in checked) return checked;
        return success(chats.asMessage(chats.send(params, checked.text)));
      }
      case 'editMessageText': {
        if (params.chat_id === undefined) return failure(400, 'Bad Request: chat not found');
        const stored = chats.editable(params.chat_id, params.message_id);
        if ('status' in stored) return failure(stored.status, stored.description);
        const checked = checkText(params);
        if ('ok' in checked) return checked;
        const refused = chats.editText(stored, params, checked.text);
        if (refused) return failure(refused.status, refused.description);
        return success({ ...chats.asMessage(stored), edit_date: Math.floor(Date.now() / 1000) });
      }
      case 'editMessageReplyMarkup': {
        if (params.chat_id === undefined) return failure(400, 'Bad Request: chat not found');
        const stored = chats.editable(params.chat_id, params.message_id);
        if ('status' in stored) return failure(stored.status, stored.description);
        const refused = chats.editMarkup(stored, params);
        if (refused) return failure(refused.status, refused.description);
        return success({ ...chats.asMessage(stored), edit_date: Math.floor(Date.now() / 1000) });
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
        const caption = typeof params.caption === 'string' ? params.caption : undefined;
        const sent = chats.send(params, caption ?? '', { kind: method === 'sendPhoto' ? 'photo' : 'document', fileName: upload.name });
        uploads.push({ method, chatId: params.chat_id as number | string, fileName: upload.name, bytes: upload.bytes, caption, messageId: sent.messageId });
        return success(chats.asMessage(sent));
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
    let recorded: TelegramCall | undefined;
    if (match === null || match[1] !== token) {
      reply = failure(match === null ? 404 : 401, match === null ? 'Not Found' : 'Unauthorized');
    } else {
      const method = match[2] as string;
      const call: TelegramCall = { method, params, at: Date.now(), failed: false };
      recorded = call;
      calls.push(call);
      const clientGone = new AbortController();
      response.once('close', () => {
        // a finished response has nothing left to abandon; abort() would build a DOMException for every call
        if (response.writableFinished) return;
        call.abandoned = true;
        clientGone.abort();
      });
      await holds.waitIfHeld(method);
      const planned = takeFailure(method);
      if (planned?.committed) await answer(method, params, clientGone.signal);
      reply = planned?.reply ?? (await answer(method, params, clientGone.signal));
      call.failed = !reply.ok;
      const stall = planned ? undefined : takeStall(method);
      if (stall !== undefined) await new Promise((resolve) => setTimeout(resolve, stall));
      // a long poll whose client went away (aborted on stop) has no one to answer
      if (clientGone.signal.aborted) return;
    }
    if (recorded !== undefined) recorded.answeredAt = Date.now();
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

  function takeStall(method: string): number | undefined {
    const planned = stalls.get(method)?.[0];
    if (planned === undefined) return undefined;
    planned.times -= 1;
    if (planned.times <= 0) stalls.get(method)?.shift();
    return planned.ms;
  }

  function takeFailure(method: string): { reply: ApiAnswer; committed: boolean } | undefined {
    const planned = failures.get(method)?.[0];
    if (planned === undefined) return undefined;
    if ((planned.after ?? 0) > 0) {
      planned.after! -= 1;
      return undefined;
    }
    planned.times = (planned.times ?? 1) - 1;
    if (planned.times <= 0) failures.get(method)?.shift();
    return { reply: failure(planned.status, planned.description, planned.retry_after), committed: planned.committed === true };
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
    visibleMessages: chats.visible,
    /** Updates whose messages are numbered in their chats as the double numbers the bot's own (see telegram-chats.ts). */
    makeUpdate: createUpdateFactory({ id: botId, username: botUsername }, { allocate: chats.allocate, record: chats.recordUserMessage }),
    /**
     * The next `times` calls of `method` take effect at once but are answered only `ms` later: the message is in
     * the chat while the caller still waits (what a worker killed after Telegram accepted a message leaves).
     */
    stallAfterCommit(method: string, ms: number, times = 1): void {
      stalls.set(method, [...(stalls.get(method) ?? []), { ms, times }]);
    },
    /**
     * The next call of `method` is held on arrival, before it takes effect (a request on its way while its sender
     * stalls): `arrived` resolves when it is held, `release()` lets it take effect and be answered.
     */
    holdBeforeCommit: holds.hold,
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
    /**
     * Every call with this `message_thread_id` in this chat is refused from now on (400, nothing posted), as Telegram
     * answers for a deleted topic ("Bad Request: message thread not found"), a closed one ("Bad Request:
     * TOPIC_CLOSED") or a deleted one ("Bad Request: TOPIC_DELETED").
     */
    refuseThread(chatId: number | string, threadId: number, description = 'Bad Request: message thread not found'): void {
      refusedThreads.set(`${String(chatId)}:${threadId}`, description);
    },
    /** Topics the bot created (createForumTopic), with their names now. */
    topics,
    /** Turns threaded mode (topics in private chats) on or off, as @BotFather's setting does. */
    setTopicsInPrivateChats(on: boolean): void {
      topicsInPrivateChats = on;
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
