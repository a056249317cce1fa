import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SLACK_BOT_SCOPES } from '../../channels/slack/app-permissions.js';
import { createSlackHistory, type PostedMessage, type SharedFile } from './slack-history.js';
import { createEventFactory, signedRequest, type SignedRequest, type SigningOptions } from './slack-requests.js';
import { callHolds } from './call-holds.js';

export { createEventFactory, signedRequest, type SignedRequest, type SigningOptions, type SlackTestEvent } from './slack-requests.js';
export type { SlackCall, SlackDoubleOptions, SlackFailure, SlackFileObject, SlackUpload } from './slack-double-types.js';
import type { SlackCall, SlackDoubleOptions, SlackFailure, SlackFileObject, SlackUpload } from './slack-double-types.js';

/**
 * A local stand-in for the Slack Web API (https://docs.slack.dev/reference/methods), driven by the real
 * @slack/web-api WebClient: `POST {apiUrl}<method>` with a form or JSON body, answered `{ ok: true, … }`,
 * `{ ok: false, error }`, or HTTP 429 with `Retry-After`. It also signs requests the way Slack signs the
 * events it posts to our service, and builds those events.
 */
type Answer = { status: number; body: Record<string, unknown>; headers?: Record<string, string> };
type StoredMessage = PostedMessage;

export const SLACK_TEXT_LIMIT = 40_000;

export async function startSlackDouble(options: SlackDoubleOptions = {}) {
  const botUserId = options.botUserId ?? 'UBOT0001';
  const teamId = options.teamId ?? 'T0TEAM01';
  const signingSecret = options.signingSecret ?? 'signing-secret-for-tests';
  const botToken = options.botToken ?? 'xoxb-test-double-token';
  const calls: SlackCall[] = [];
  const failures = new Map<string, SlackFailure[]>();
  const messages = new Map<string, StoredMessage>();
  /** The same messages by channel, oldest first: a long soak asks for one channel's many times a second. */
  const byChannel = new Map<string, StoredMessage[]>();
  /** Files the bot uploaded (v2 flow), with the channels completing them shared them to. */
  const botFiles = new Map<string, SharedFile>();
  const history = createSlackHistory(botUserId, messages, botFiles);
  /** Calls answered only after a pause, their effect already done (a worker killed meanwhile never learns of it). */
  const stalls = new Map<string, Array<{ ms: number; times: number }>>();
  /** Calls held on arrival, before they take effect, until the test lets them through (a request still on its way). */
  const holds = callHolds();
  const reactions = new Set<string>();
  const channelNames = new Map<string, string>();
  /** Assistant threads' suggested prompts and titles, by `channel:thread_ts` (the latest set). */
  const suggestedPrompts = new Map<string, Array<{ title: string; message: string }>>();
  const threadTitles = new Map<string, string>();
  let assistantThreads = options.assistantThreads ?? true;
  const scopes = options.scopes === undefined ? SLACK_BOT_SCOPES.map((scope) => scope.name) : options.scopes;
  let socketUrl: string | undefined;
  let nextTs = 0;
  let nextFileId = 0;
  /** Files users shared (served at url_private_download to the bot token only). */
  const files = new Map<string, { bytes: Buffer; name: string; mimetype: string; gone: boolean }>();
  /** The v2 upload flow: URLs handed out, bytes posted to them, and completions (one message per completed file). */
  const pendingUploads = new Map<string, { filename: string; length: number; bytes?: Buffer }>();
  const uploads: SlackUpload[] = [];
  /** Every GET of a private file URL, with whether it carried the bot token. */
  const downloads: Array<{ fileId: string; authorized: boolean }> = [];
  let baseUrl = '';

  const ok = (body: Record<string, unknown> = {}): Answer => ({ status: 200, body: { ok: true, ...body } });
  const error = (code: string): Answer => ({ status: 200, body: { ok: false, error: code } });
  const newTs = (): string => `${Math.floor(Date.now() / 1000)}.${String(++nextTs).padStart(6, '0')}`;

  function checkText(params: Record<string, any>): Answer | undefined {
    const text = typeof params.text === 'string' ? params.text : '';
    if (text.trim() === '' && params.blocks === undefined) return error('no_text');
    if (text.length > SLACK_TEXT_LIMIT) return error('msg_too_long');
    return undefined;
  }

  function answer(method: string, params: Record<string, any>, token: string | undefined): Answer {
    if (method === 'apps.connections.open') {
      if (!token?.startsWith('xapp-')) return error('not_allowed_token_type');
      return socketUrl ? ok({ url: socketUrl }) : error('internal_error');
    }
    if (token !== botToken) return error('invalid_auth');
    const message = messages.get(`${params.channel}:${params.ts}`);
    switch (method) {
      case 'auth.test':
        return {
          ...ok({ url: 'https://double.slack.test/', team: 'Double Team', user: 'doublebot', team_id: teamId, user_id: botUserId, bot_id: 'B0BOT001' }),
          ...(scopes === null ? {} : { headers: { 'x-oauth-scopes': scopes.join(',') } }),
        };
      case 'chat.postMessage': {
        if (!params.channel) return error('channel_not_found');
        const refused = checkText(params);
        if (refused) return refused;
        const ts = newTs();
        const stored: StoredMessage = {
          channel: params.channel,
          ts,
          text: params.text,
          deleted: false,
          ...(params.thread_ts ? { threadTs: params.thread_ts } : {}),
          ...(Array.isArray(params.blocks) ? { blocks: params.blocks } : {}),
          ...(isMetadata(params.metadata) ? { metadata: params.metadata } : {}),
        };
        messages.set(`${params.channel}:${ts}`, stored);
        const inChannel = byChannel.get(params.channel) ?? [];
        inChannel.push(stored);
        byChannel.set(params.channel, inChannel);
        return ok({ channel: params.channel, ts, message: { type: 'message', user: botUserId, bot_id: 'B0BOT001', text: params.text, ts, thread_ts: params.thread_ts } });
      }
      case 'chat.update': {
        if (message === undefined || message.deleted) return error('message_not_found');
        const refused = checkText(params);
        if (refused) return refused;
        message.text = params.text;
        if (Array.isArray(params.blocks)) message.blocks = params.blocks;
        return ok({ channel: params.channel, ts: params.ts, text: params.text });
      }
      case 'chat.delete':
        if (message === undefined || message.deleted) return error('message_not_found');
        message.deleted = true;
        return ok({ channel: params.channel, ts: params.ts });
      case 'reactions.add': {
        const key = `${params.channel}:${params.timestamp}:${params.name}`;
        if (reactions.has(key)) return error('already_reacted');
        reactions.add(key);
        return ok();
      }
      case 'reactions.remove':
        return reactions.delete(`${params.channel}:${params.timestamp}:${params.name}`) ? ok() : error('no_reaction');
      case 'assistant.threads.setStatus':
        if (!params.channel_id || !params.thread_ts) return error('invalid_arguments');
        return assistantThreads ? ok() : error('not_allowed');
      // https://docs.slack.dev/reference/methods/assistant.threads.setSuggestedPrompts: 1 to 4 prompts, each a title and a message
      case 'assistant.threads.setSuggestedPrompts': {
        if (!params.channel_id || !params.thread_ts) return error('invalid_arguments');
        const prompts = params.prompts as unknown;
        const valid = Array.isArray(prompts) && prompts.length >= 1 && prompts.length <= 4 && prompts.every((prompt) => typeof prompt?.title === 'string' && prompt.title !== '' && typeof prompt?.message === 'string' && prompt.message !== '');
        if (!valid) return error('invalid_arguments');
        if (!assistantThreads) return error('not_allowed');
        suggestedPrompts.set(`${params.channel_id}:${params.thread_ts}`, prompts as Array<{ title: string; message: string }>);
        return ok();
      }
      // https://docs.slack.dev/reference/methods/assistant.threads.setTitle
      case 'assistant.threads.setTitle':
        if (!params.channel_id || !params.thread_ts || typeof params.title !== 'string' || params.title.trim() === '') return error('invalid_arguments');
        if (!assistantThreads) return error('not_allowed');
        threadTitles.set(`${params.channel_id}:${params.thread_ts}`, params.title);
        return ok();
      case 'files.getUploadURLExternal': {
        const length = Number(params.length);
        if (!params.filename || !Number.isFinite(length) || length <= 0) return error('invalid_arguments');
        const fileId = `F0UP${String(++nextFileId).padStart(6, '0')}`;
        pendingUploads.set(fileId, { filename: String(params.filename), length });
        botFiles.set(fileId, { id: fileId, name: String(params.filename), shares: new Map() });
        return ok({ upload_url: `${baseUrl}/upload/v1/${fileId}`, file_id: fileId });
      }
      case 'files.completeUploadExternal': {
        const list = (typeof params.files === 'string' ? parseJson(params.files) : params.files) as Array<{ id: string; title?: string }>;
        if (!Array.isArray(list) || list.length === 0) return error('invalid_arguments');
        const completed = [];
        for (const { id, title } of list) {
          const pending = pendingUploads.get(id);
          if (!pending?.bytes) return error('file_not_found');
          pendingUploads.delete(id);
          uploads.push({ fileId: id, fileName: pending.filename, title, bytes: pending.bytes, channel: params.channel_id, threadTs: params.thread_ts, initialComment: params.initial_comment });
          if (params.channel_id) botFiles.get(id)?.shares.set(String(params.channel_id), { ts: newTs(), threadTs: params.thread_ts });
          completed.push({ id, name: pending.filename, title: title ?? pending.filename, size: pending.bytes.length });
        }
        return ok({ files: completed });
      }
      case 'conversations.info': {
        const channel = String(params.channel ?? '');
        if (!channel) return error('channel_not_found');
        return ok({ channel: { id: channel, name: channelNames.get(channel) ?? `channel-${channel.toLowerCase()}`, is_channel: true } });
      }
      default:
        return history.answer(method, params) ?? ok();
    }
  }

  function takeStall(method: string): number | undefined {
    const planned = stalls.get(method)?.[0];
    if (planned === undefined) return undefined;
    planned.times -= 1;
    if (planned.times <= 0) stalls.get(method)?.shift();
    return planned.ms;
  }

  function takeFailure(method: string): Answer | undefined {
    const planned = failures.get(method)?.[0];
    if (planned === undefined) return undefined;
    planned.times = (planned.times ?? 1) - 1;
    if (planned.times <= 0) failures.get(method)?.shift();
    const status = planned.status ?? 200;
    if (status === 429) {
      return { status, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': String(planned.retryAfter ?? 1) } };
    }
    return { status, body: { ok: false, error: planned.error ?? 'internal_error' } };
  }

  const server = createServer((request, response) => {
    void handle(request, response);
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://double').pathname;
    const upload = /^\/upload\/v1\/([A-Z0-9]+)$/.exec(path);
    if (upload) return receiveUpload(upload[1]!, request, response);
    const download = /^\/files-pri\/[A-Z0-9]+-([A-Z0-9]+)\/download\/.+$/.exec(path);
    if (download) return serveFile(download[1]!, request, response);
    const method = /^\/api\/([A-Za-z.]+)$/.exec(path)?.[1];
    const params = await readParams(request);
    let reply: Answer;
    if (method === undefined) {
      reply = { status: 404, body: { ok: false, error: 'unknown_method' } };
    } else {
      const call: SlackCall = { method, params, at: Date.now(), status: 200, failed: false };
      calls.push(call);
      const authorization = request.headers.authorization ?? (typeof params.token === 'string' ? `Bearer ${params.token}` : undefined);
      await holds.waitIfHeld(method);
      const planned = takeFailure(method);
      reply = planned ?? answer(method, params, authorization?.replace(/^Bearer /, ''));
      call.status = reply.status;
      call.failed = reply.status !== 200 || reply.body.ok !== true;
      const stall = planned ? undefined : takeStall(method);
      if (stall !== undefined) await new Promise((resolve) => setTimeout(resolve, stall));
    }
    response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    response.end(JSON.stringify(reply.body));
  }

  /** Step 2 of the v2 flow: the bytes POSTed to the upload URL (Slack answers `OK - <length>`). */
  async function receiveUpload(fileId: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const pending = pendingUploads.get(fileId);
    if (!pending || request.method !== 'POST') {
      response.writeHead(404).end('not found');
      return;
    }
    const body = Buffer.concat(chunks);
    const contentType = String(request.headers['content-type'] ?? '');
    // raw bytes, or (as the WebClient sends them) a multipart form whose file part is the content
    if (contentType.includes('multipart/form-data')) {
      const form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
      const file = [...form.values()].find((value): value is File => typeof value !== 'string');
      pending.bytes = file ? Buffer.from(await file.arrayBuffer()) : Buffer.alloc(0);
    } else {
      pending.bytes = body;
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${pending.bytes.length}`);
  }

  /**
   * `url_private_download`: only with `Authorization: Bearer <bot token>`. Without it Slack answers 200 with
   * its HTML sign-in page (the classic trap), and a deleted file is a 404.
   */
  async function serveFile(fileId: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    for await (const _chunk of request) void _chunk;
    const authorized = request.headers.authorization === `Bearer ${botToken}`;
    downloads.push({ fileId, authorized });
    const file = files.get(fileId);
    if (!authorized) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!DOCTYPE html><html><body>Sign in to Slack</body></html>');
      return;
    }
    if (!file || file.gone) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('file_not_found');
      return;
    }
    response.writeHead(200, { 'content-type': file.mimetype, 'content-length': String(file.bytes.length) }).end(file.bytes);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;

  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    botUserId,
    teamId,
    signingSecret,
    botToken,
    calls,
    callsOf: (method: string) => calls.filter((call) => call.method === method),
    /** Messages the bot posted (and their latest text), by `channel:ts`. */
    messages,
    /** The messages the bot posted in one channel (deleted ones included), oldest first. */
    messagesIn: (channel: string): StoredMessage[] => byChannel.get(channel) ?? [],
    reactions,
    /** The suggested prompts of an assistant thread, by `channel:thread_ts`. */
    suggestedPrompts,
    /** The title of an assistant thread, by `channel:thread_ts`. */
    threadTitles,
    uploads,
    downloads,
    /** Stores a file a user shared; returns the `files[]` entry of the message event that carries it. */
    addFile(bytes: Buffer, name: string, mimetype: string): SlackFileObject {
      const id = `F0IN${String(++nextFileId).padStart(6, '0')}`;
      files.set(id, { bytes, name, mimetype, gone: false });
      const url = `${baseUrl}/files-pri/${teamId}-${id}/download/${encodeURIComponent(name)}`;
      return { id, name, title: name, mimetype, filetype: name.split('.').at(-1) ?? 'binary', size: bytes.length, url_private: url, url_private_download: url };
    },
    /** The file is deleted: its private URL answers 404 from now on. */
    removeFile(id: string): void {
      const file = files.get(id);
      if (file) file.gone = true;
    },
    /** The next `times` calls of `method` take effect at once but are answered only `ms` later. */
    stallAfterCommit(method: string, ms: number, times = 1): void {
      stalls.set(method, [...(stalls.get(method) ?? []), { ms, times }]);
    },
    /**
     * The next call of `method` is held on arrival, before it takes effect (a request on its way while its sender
     * stalls): `arrived` resolves when it is held, `release()` lets it take effect and be answered.
     */
    holdBeforeCommit: holds.hold,
    failNext(method: string, failure: SlackFailure = {}): void {
      failures.set(method, [...(failures.get(method) ?? []), { ...failure }]);
    },
    setAssistantThreads(enabled: boolean): void {
      assistantThreads = enabled;
    },
    setChannelName(channel: string, name: string): void {
      channelNames.set(channel, name);
    },
    /** The WebSocket URL `apps.connections.open` hands out (Socket Mode). */
    setSocketUrl(url: string): void {
      socketUrl = url;
    },
    signedRequest: (path: string, body: unknown, signing: SigningOptions = {}) => signedRequest(path, body, { secret: signingSecret, ...signing }),
    makeEvent: createEventFactory({ botUserId, teamId }),
    async close(): Promise<void> {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type SlackDouble = Awaited<ReturnType<typeof startSlackDouble>>;


async function readParams(request: IncomingMessage): Promise<Record<string, any>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  if (body === '') return {};
  const type = request.headers['content-type'] ?? '';
  if (type.includes('application/json')) return JSON.parse(body) as Record<string, any>;
  // the WebClient form-encodes, with objects and arrays as JSON strings
  return Object.fromEntries([...new URLSearchParams(body)].map(([key, value]) => [key, /^[[{]/.test(value) ? parseJson(value) : value]));
}

/** `metadata` as chat.postMessage takes it: an `event_type` and an `event_payload` object. */
function isMetadata(value: unknown): value is NonNullable<PostedMessage['metadata']> {
  const candidate = value as PostedMessage['metadata'];
  return typeof candidate?.event_type === 'string' && typeof candidate.event_payload === 'object' && candidate.event_payload !== null;
}

function parseJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
