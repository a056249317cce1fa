import { createCipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import { createFeishuEvents, larkSignature } from './feishu-events.js';
import { startHttpDouble, type Exchange } from './http-double.js';

/**
 * A local stand-in for the Feishu / Lark Open API (https://open.feishu.cn/document), driven by the real
 * Lark SDK: tenant tokens, bot info, the IM message and reaction calls, and the long connection's
 * endpoint discovery. Every answer is `{code, msg, data}`; calls without a token it issued are refused.
 */
export interface FeishuCall {
  method: string;
  /** Without the query string. */
  path: string;
  query: Record<string, string>;
  body: any;
  at: number;
  status: number;
  /** Feishu's business code of the answer (0 = success). */
  code: number;
}

export interface FeishuFailure {
  /** HTTP status; default 429 (with `code` 99991400, Feishu's rate limit). */
  status?: number;
  code?: number;
  msg?: string;
  times?: number;
  /** Sent as `x-ogw-ratelimit-reset` (seconds). */
  resetSeconds?: number;
}

/** A message the bot sent, as the double keeps it. */
export interface StoredMessage {
  messageId: string;
  msgType: string;
  /** The parsed content (post object, card object, `{text}`). */
  content: any;
  parentId: string | undefined;
  deleted: boolean;
  patches: number;
  createdAt: number;
}

export type FeishuDoubleOptions = Partial<Record<'appId' | 'appSecret' | 'botOpenId' | 'botName' | 'encryptKey' | 'verificationToken', string>> & {
  /** Lifetime of the tenant tokens it issues (Feishu: 7200 s; the SDK renews 180 s before the end). */
  tokenExpireSeconds?: number;
};

type Answer = { status: number; code: number; msg: string; data?: unknown; extra?: Record<string, unknown>; headers?: Record<string, string> };

/** Feishu: "持有相同uuid的请求1小时内至多成功发送一条消息" (at most one message per uuid within an hour). */
export const UUID_WINDOW_MS = 60 * 60 * 1000;
const BODY_LIMIT_BYTES = 30 * 1024;
const TEXT_BODY_LIMIT_BYTES = 150 * 1024;
const POST_TAGS = new Set(['text', 'a', 'at', 'img', 'media', 'emotion', 'code_block', 'hr', 'md']);
const STYLES = new Set(['bold', 'italic', 'underline', 'lineThrough']);

export async function startFeishuDouble(options: FeishuDoubleOptions = {}) {
  const identity = {
    appId: options.appId ?? 'cli_a1b2c3d4e5f60718',
    appSecret: options.appSecret ?? 'double-app-secret',
    botOpenId: options.botOpenId ?? 'ou_double_bot',
    botName: options.botName ?? 'DoubleBot',
    encryptKey: options.encryptKey ?? 'double-encrypt-key',
    verificationToken: options.verificationToken ?? 'double-verification-token',
  };
  const calls: FeishuCall[] = [];
  const failures: Array<{ pattern: string | RegExp; failure: FeishuFailure }> = [];
  const issuedTokens = new Map<string, number>();
  const messages = new Map<string, StoredMessage>();
  /** The bot's replies by the message they answer: a long soak asks for one chat's many times a second. */
  const byParent = new Map<string, StoredMessage[]>();
  const reactions = new Map<string, { messageId: string; emojiType: string }>();
  /** Reply `uuid`s seen, with the message each one made: a repeat within the hour gets that message back, nothing new. */
  const replyUuids = new Map<string, { messageId: string; at: number }>();
  const stalls: Array<{ pattern: string | RegExp; ms: number; times: number }> = [];
  /** Files in users' messages, by `messageId:fileKey` (the message resource API serves them). */
  const resources = new Map<string, { bytes: Buffer; type: 'image' | 'file' }>();
  /** Images and files the bot uploaded, by the key the upload answered. */
  const uploads = new Map<string, { kind: 'image' | 'file'; bytes: Buffer; fileName: string | undefined; fileType: string | undefined }>();
  let tokenRequests = 0;
  let longConnectionUrl: string | undefined;
  let nextId = 1;

  const matches = (pattern: string | RegExp, method: string, path: string): boolean =>
    typeof pattern === 'string' ? `${method} ${path}`.includes(pattern) : pattern.test(`${method} ${path}`);
  const ok = (data?: unknown): Answer => ({ status: 200, code: 0, msg: 'success', data });
  const refuse = (status: number, code: number, msg: string): Answer => ({ status, code, msg });

  function takeFailure(method: string, path: string): Answer | undefined {
    const index = failures.findIndex((entry) => matches(entry.pattern, method, path));
    const planned = failures[index];
    if (planned === undefined) return undefined;
    planned.failure.times = (planned.failure.times ?? 1) - 1;
    if (planned.failure.times <= 0) failures.splice(index, 1);
    const { status = 429, code = 99991400, msg = 'request trigger frequency limit', resetSeconds } = planned.failure;
    return { status, code, msg, ...(resetSeconds !== undefined ? { headers: { 'x-ogw-ratelimit-limit': '5', 'x-ogw-ratelimit-reset': String(resetSeconds) } } : {}) };
  }

  function takeStall(method: string, path: string): number | undefined {
    const index = stalls.findIndex((entry) => matches(entry.pattern, method, path));
    const planned = stalls[index];
    if (planned === undefined) return undefined;
    planned.times -= 1;
    if (planned.times <= 0) stalls.splice(index, 1);
    return planned.ms;
  }

  function storeMessage(body: any, parentId: string | undefined): Answer {
    const checked = checkContent(body?.msg_type, body?.content);
    if (typeof checked === 'string') return refuse(400, 230001, `invalid message content: ${checked}`);
    const messageId = `om_bot_${nextId++}`;
    const stored: StoredMessage = { messageId, msgType: body.msg_type, content: checked.content, parentId, deleted: false, patches: 0, createdAt: Date.now() };
    messages.set(messageId, stored);
    if (parentId !== undefined) byParent.set(parentId, [...(byParent.get(parentId) ?? []), stored]);
    return messageData(messageId);
  }

  /** The message object the IM API answers with (as sent: a later patch shows in `content` only). */
  function messageData(messageId: string): Answer {
    const stored = messages.get(messageId)!;
    const { msgType, parentId } = stored;
    return ok({ message_id: messageId, msg_type: msgType, parent_id: parentId, create_time: String(stored.createdAt), sender: { id: identity.appId, id_type: 'app_id', sender_type: 'app' }, body: { content: JSON.stringify(stored.content) } });
  }

  function answer(method: string, path: string, body: any, authorized: boolean): Answer {
    if (method === 'POST' && path === '/open-apis/auth/v3/tenant_access_token/internal') {
      tokenRequests += 1;
      if (body?.app_id !== identity.appId || body?.app_secret !== identity.appSecret) return refuse(400, 10014, 'app secret invalid');
      const token = `t-${randomUUID()}`;
      const expire = options.tokenExpireSeconds ?? 7200;
      issuedTokens.set(token, Date.now() + expire * 1000);
      return { status: 200, code: 0, msg: 'ok', extra: { tenant_access_token: token, expire } };
    }
    if (method === 'POST' && path === '/callback/ws/endpoint') {
      if (body?.AppID !== identity.appId || body?.AppSecret !== identity.appSecret) return refuse(200, 403, 'forbidden');
      if (longConnectionUrl === undefined) return refuse(200, 1000040350, 'long connection not enabled in this double');
      return ok({ URL: longConnectionUrl, ClientConfig: { PingInterval: 120, ReconnectCount: -1, ReconnectInterval: 120, ReconnectNonce: 30 } });
    }
    if (!authorized) return refuse(400, 99991663, 'Invalid access token for authorization. Please make a request with token attached.');
    if (method === 'GET' && path === '/open-apis/bot/v3/info') {
      return { status: 200, code: 0, msg: 'ok', extra: { bot: { activate_status: 2, app_name: identity.botName, avatar_url: '', ip_white_list: [], open_id: identity.botOpenId } } };
    }
    const [, messageId, rest] = /^\/open-apis\/im\/v1\/messages(?:\/([^/]+))?(\/.*)?$/.exec(path) ?? [];
    if (messageId === undefined && rest === undefined && method === 'POST') return storeMessage(body, undefined);
    if (messageId === undefined) return refuse(404, 404, `no route ${method} ${path}`);
    const stored = messages.get(messageId);
    if (rest === '/reply' && method === 'POST') {
      if (!messageId.startsWith('om_') || stored?.deleted) return refuse(400, 230011, 'The message was withdrawn or does not exist.');
      if (typeof body?.uuid === 'string' && body.uuid.length > 50) return refuse(400, 99992402, 'field validation failed: uuid longer than 50 characters');
      const known = typeof body?.uuid === 'string' ? replyUuids.get(body.uuid) : undefined;
      if (known !== undefined && Date.now() - known.at < UUID_WINDOW_MS) return messageData(known.messageId);
      const result = storeMessage(body, messageId);
      if (result.code === 0 && typeof body?.uuid === 'string') replyUuids.set(body.uuid, { messageId: (result.data as { message_id: string }).message_id, at: Date.now() });
      return result;
    }
    if (rest === '/reactions' && method === 'POST') {
      const emojiType = body?.reaction_type?.emoji_type;
      if (typeof emojiType !== 'string' || !messageId.startsWith('om_')) return refuse(400, 231001, 'reaction type is invalid');
      const reactionId = `reaction_${nextId++}`;
      reactions.set(reactionId, { messageId, emojiType });
      return ok({ reaction_id: reactionId, operator: { operator_id: identity.appId, operator_type: 'app' }, action_time: String(Date.now()), reaction_type: { emoji_type: emojiType } });
    }
    const reactionId = /^\/reactions\/([^/]+)$/.exec(rest ?? '')?.[1];
    if (reactionId !== undefined && method === 'DELETE') {
      if (reactions.get(reactionId)?.messageId !== messageId) return refuse(400, 231003, 'The reaction does not exist.');
      reactions.delete(reactionId);
      return ok({ reaction_id: reactionId });
    }
    if (rest !== undefined) return refuse(404, 404, `no route ${method} ${path}`);
    if (stored === undefined || stored.deleted) return refuse(400, 230011, 'The message was withdrawn or does not exist.');
    if (method === 'DELETE') {
      stored.deleted = true;
      return ok({});
    }
    if (method === 'PATCH') {
      const checked = checkContent('interactive', body?.content);
      if (stored.msgType !== 'interactive') return refuse(400, 230001, 'only cards can be patched');
      if (typeof checked === 'string') return refuse(400, 230001, `invalid card: ${checked}`);
      if (stored.content?.config?.update_multi !== true || checked.content?.config?.update_multi !== true) return refuse(400, 230099, 'card is not shared (update_multi)');
      stored.content = checked.content;
      stored.patches += 1;
      return ok({});
    }
    return refuse(404, 404, `no route ${method} ${path}`);
  }

  /** `GET …/messages/{id}/resources/{key}?type=image|file`: the bytes, or Feishu's JSON error. */
  function serveResource(exchange: Exchange, messageId: string, fileKey: string, type: string | null): void {
    const resource = resources.get(`${messageId}:${fileKey}`);
    const fail = (status: number, code: number, msg: string) => {
      calls.push({ method: 'GET', path: exchange.request.path.split('?')[0]!, query: { type: type ?? '' }, body: undefined, at: exchange.request.receivedAt, status, code });
      exchange.json(status, { code, msg });
    };
    if (type !== 'image' && type !== 'file') return fail(400, 234001, 'Invalid request param: type');
    if (resource === undefined) return fail(400, 234003, 'File not in msg.');
    if (resource.type !== type) return fail(400, 234001, 'Invalid request param: type mismatch');
    calls.push({ method: 'GET', path: exchange.request.path.split('?')[0]!, query: { type }, body: undefined, at: exchange.request.receivedAt, status: 200, code: 0 });
    exchange.response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(resource.bytes.length) });
    exchange.response.end(resource.bytes);
  }

  /** `POST /open-apis/im/v1/images` (`image_type`, `image`) and `/files` (`file_type`, `file_name`, `file`), multipart. */
  async function receiveUpload(exchange: Exchange, kind: 'image' | 'file'): Promise<Answer> {
    const contentType = String(exchange.request.headers['content-type'] ?? '');
    if (!contentType.includes('multipart/form-data')) return refuse(400, 234001, 'content type must be multipart/form-data');
    const form = await new Response(new Uint8Array(exchange.request.rawBytes), { headers: { 'content-type': contentType } }).formData();
    const file = form.get(kind);
    if (file === null || typeof file === 'string') return refuse(400, 234001, `${kind} is required`);
    const bytes = Buffer.from(await file.arrayBuffer());
    if (bytes.length === 0) return refuse(400, 234010, 'empty file');
    if (kind === 'image' && form.get('image_type') !== 'message') return refuse(400, 234001, 'image_type must be message');
    const key = `${kind === 'image' ? 'img_v3_bot' : 'file_v3_bot'}_${nextId++}`;
    const fileName = form.get('file_name');
    const fileType = form.get('file_type');
    uploads.set(key, { kind, bytes, fileName: typeof fileName === 'string' ? fileName : undefined, fileType: typeof fileType === 'string' ? fileType : undefined });
    return ok(kind === 'image' ? { image_key: key } : { file_key: key });
  }

  async function handle(exchange: Exchange): Promise<void> {
    const { request } = exchange;
    const url = new URL(request.path, 'http://double');
    const method = request.method.toUpperCase();
    const token = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    const authorizedNow = token !== undefined && (issuedTokens.get(token) ?? 0) > Date.now();
    const resource = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/resources\/([^/]+)$/.exec(url.pathname);
    if (resource && method === 'GET' && authorizedNow && !failures.some((entry) => matches(entry.pattern, method, url.pathname))) {
      return serveResource(exchange, resource[1]!, resource[2]!, url.searchParams.get('type'));
    }
    const uploadKind = method === 'POST' && url.pathname === '/open-apis/im/v1/images' ? 'image' : method === 'POST' && url.pathname === '/open-apis/im/v1/files' ? 'file' : undefined;
    if (uploadKind && authorizedNow && !failures.some((entry) => matches(entry.pattern, method, url.pathname))) {
      const result = await receiveUpload(exchange, uploadKind);
      calls.push({ method, path: url.pathname, query: {}, body: undefined, at: request.receivedAt, status: result.status, code: result.code });
      return exchange.json(result.status, { code: result.code, msg: result.msg, ...(result.data !== undefined ? { data: result.data } : {}) });
    }
    const failed = url.pathname.includes('tenant_access_token') ? undefined : takeFailure(method, url.pathname);
    const result = failed ?? answer(method, url.pathname, request.body, token !== undefined && (issuedTokens.get(token) ?? 0) > Date.now());
    if (!url.pathname.includes('tenant_access_token')) {
      calls.push({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), body: request.body, at: request.receivedAt, status: result.status, code: result.code });
    }
    const body = { code: result.code, msg: result.msg, ...(result.data !== undefined ? { data: result.data } : {}), ...result.extra };
    const stall = failed ? undefined : takeStall(method, url.pathname);
    if (stall !== undefined) await exchange.pause(stall);
    exchange.json(result.status, body, result.headers);
  }

  function encrypt(body: unknown, encryptKey: string = identity.encryptKey): { encrypt: string } {
    const iv = randomBytes(16);
    const cipher = createCipheriv('aes-256-cbc', createHash('sha256').update(encryptKey).digest(), iv);
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return { encrypt: Buffer.concat([iv, cipher.update(text, 'utf8'), cipher.final()]).toString('base64') };
  }

  function signedHeaders(rawBody: string, encryptKey: string = identity.encryptKey, atMs: number = Date.now()): Record<string, string> {
    return larkSignature('sha256', rawBody, encryptKey, atMs);
  }

  const http = await startHttpDouble(handle);
  let closed = false;

  return {
    ...identity,
    domain: http.url,
    calls,
    messages,
    /** The bot's replies to one message (deleted ones included), oldest first. */
    repliesTo: (parentId: string): StoredMessage[] => byParent.get(parentId) ?? [],
    reactions,
    /** Calls whose `METHOD /path` contains the string (or matches the pattern), e.g. `/reply` or /^PATCH /. */
    callsOf: (pattern: string | RegExp) => calls.filter((call) => matches(pattern, call.method, call.path)),
    get tokenRequests() {
      return tokenRequests;
    },
    /** The next `times` calls matching the pattern take effect at once but are answered only `ms` later. */
    stallAfterCommit(pattern: string | RegExp, ms: number, times = 1) {
      stalls.push({ pattern, ms, times });
    },
    /** The next `times` (default 1) calls matching the pattern fail as described (default: Feishu's rate limit). */
    failNext(pattern: string | RegExp, failure: FeishuFailure = {}) {
      failures.push({ pattern, failure: { ...failure } });
    },
    uploads,
    /** A file in a user's message, for the message resource API (`type` as the API is asked for it). */
    addResource(messageId: string, fileKey: string, bytes: Buffer, type: 'image' | 'file'): void {
      resources.set(`${messageId}:${fileKey}`, { bytes, type });
    },
    /** Where `/callback/ws/endpoint` sends the long-connection client (see long-connection-double). */
    setLongConnectionUrl(url: string | undefined) {
      longConnectionUrl = url;
    },
    events: createFeishuEvents(identity),
    /** `{"encrypt": …}` as Feishu sends an event when an encrypt key is set (AES-256-CBC, key sha256(encryptKey)). */
    encrypt,
    /** The headers Feishu signs a delivery with: sha256(timestamp + nonce + encryptKey + body); `atMs`: the signing time. */
    signedHeaders,
    /** An old-style card callback's headers: sha1(timestamp + nonce + verificationToken + body). */
    legacyCardHeaders(rawBody: string, verificationToken: string = identity.verificationToken, atMs: number = Date.now()): Record<string, string> {
      return larkSignature('sha1', rawBody, verificationToken, atMs);
    },
    /**
     * A delivery as Feishu posts it: with an encrypt key (the double has one unless started with `encryptKey: ''`)
     * the body is signed, and encrypted when `encrypt` is set; without one it goes plain and unsigned.
     */
    delivery(body: unknown, options: { encrypt?: boolean; atMs?: number } = {}): FeishuDelivery {
      const key = identity.encryptKey;
      const wrapped = options.encrypt === true && key !== '' ? encrypt(body, key) : body;
      const rawBody = typeof wrapped === 'string' ? wrapped : JSON.stringify(wrapped);
      return { rawBody, headers: key === '' ? {} : signedHeaders(rawBody, key, options.atMs) };
    },
    /** Idempotent, so a test may close it early to simulate an unreachable Feishu. */
    async close() {
      if (closed) return;
      closed = true;
      await http.close();
    },
  };
}

export type FeishuDouble = Awaited<ReturnType<typeof startFeishuDouble>>;
export { createFeishuEvents, type EventOptions } from './feishu-events.js';

/** The exact body and headers of one delivery to the event subscription route. */
export interface FeishuDelivery {
  rawBody: string;
  headers: Record<string, string>;
}

export function isFeishuDelivery(value: unknown): value is FeishuDelivery {
  return typeof value === 'object' && value !== null && typeof (value as FeishuDelivery).rawBody === 'string' && typeof (value as FeishuDelivery).headers === 'object';
}

/** What Feishu checks in a message body: a JSON string of the type's content, under the size limits. */
function checkContent(msgType: unknown, content: unknown): { content: any } | string {
  if (typeof content !== 'string') return 'content must be a JSON string';
  const limit = msgType === 'text' ? TEXT_BODY_LIMIT_BYTES : BODY_LIMIT_BYTES;
  if (Buffer.byteLength(JSON.stringify({ msg_type: msgType, content })) > limit) return `body over ${limit} bytes`;
  let parsed: any;
  try {
    parsed = JSON.parse(content);
  } catch {
    return 'content is not JSON';
  }
  switch (msgType) {
    case 'text':
      return typeof parsed?.text === 'string' && parsed.text.trim() !== '' ? { content: parsed } : 'text missing';
    case 'post': {
      const bodies = Object.values(parsed ?? {}) as any[];
      const valid =
        bodies.length > 0 &&
        bodies.every(
          (body) =>
            Array.isArray(body?.content) &&
            body.content.length > 0 &&
            body.content.every((line: unknown) => Array.isArray(line) && line.every((element: any) => POST_TAGS.has(element?.tag) && (element.style ?? []).every((style: string) => STYLES.has(style)))),
        );
      return valid ? { content: parsed } : 'malformed post';
    }
    case 'interactive': {
      const elements = parsed?.schema === '2.0' ? parsed?.body?.elements : parsed?.elements;
      return Array.isArray(elements) && elements.length > 0 ? { content: parsed } : 'card without elements';
    }
    case 'image':
      return typeof parsed?.image_key === 'string' && parsed.image_key.startsWith('img_') ? { content: parsed } : 'image_key missing';
    case 'file':
      return typeof parsed?.file_key === 'string' && parsed.file_key.startsWith('file_') ? { content: parsed } : 'file_key missing';
    default:
      return `msg_type ${String(msgType)} not supported by the double`;
  }
}
