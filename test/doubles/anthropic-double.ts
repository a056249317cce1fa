import { startHttpDouble, type Exchange, type HttpDouble, type RecordedRequest } from './http-double.js';
import {
  argumentsText,
  chunkText,
  DEFAULT_STREAM_SETTINGS,
  EventPacer,
  faultForModel,
  ReplyScript,
  settingsFor,
  stopReasonOf,
  usageOf,
  type Fault,
  type ModelReply,
  type ReplyPart,
  type Responder,
  type StreamSettings,
} from './model-script.js';

export interface AnthropicDoubleOptions extends Partial<StreamSettings> {
  /** Answers when no scripted reply is queued; default: `You said: <last user text>`. */
  responder?: Responder;
  /** When set, a request without that key (`Authorization: Bearer` or `x-api-key`) gets 401. */
  apiKey?: string;
  /** The model `GET /v1/models` lists. */
  model?: string;
}

export interface AnthropicDouble extends HttpDouble {
  /** What ANTHROPIC_BASE_URL should be: `http://127.0.0.1:PORT` (the SDK adds `/v1/messages`). */
  baseUrl: string;
  script: ReplyScript;
  /** Latency and chunking for every reply; change them at any time. */
  settings: StreamSettings;
  /** Only the `POST /v1/messages` requests. */
  readonly modelCalls: RecordedRequest[];
}

const MESSAGES_PATH = '/v1/messages';

/** A local stand-in for the Anthropic Messages API (JSON and SSE), for the real `@anthropic-ai/sdk`. */
export async function startAnthropicDouble(options: AnthropicDoubleOptions = {}): Promise<AnthropicDouble> {
  const script = new ReplyScript(options.responder);
  const settings: StreamSettings = {
    latencyMs: options.latencyMs ?? DEFAULT_STREAM_SETTINGS.latencyMs,
    chunkSize: options.chunkSize ?? DEFAULT_STREAM_SETTINGS.chunkSize,
    chunkDelayMs: options.chunkDelayMs ?? DEFAULT_STREAM_SETTINGS.chunkDelayMs,
  };

  const http = await startHttpDouble(async (exchange) => {
    const { request } = exchange;
    const path = request.path.split('?')[0];
    if (options.apiKey !== undefined && !hasKey(request, options.apiKey)) {
      return exchange.json(401, errorBody(request, 'authentication_error', 'invalid x-api-key'));
    }
    if (request.method === 'GET' && path === '/v1/models') {
      const model = options.model ?? 'claude-sonnet-5-5';
      return exchange.json(200, { data: [{ id: model, type: 'model', display_name: model, created_at: '2025-01-01T00:00:00Z' }], has_more: false, first_id: model, last_id: model });
    }
    if (request.method !== 'POST' || path !== MESSAGES_PATH) {
      return exchange.json(404, errorBody(request, 'not_found_error', `Not found: ${request.method} ${path}`));
    }
    // as the API: the output cap is a required field
    if (!Number.isInteger(request.body?.max_tokens) || request.body.max_tokens < 1) {
      return exchange.json(400, errorBody(request, 'invalid_request_error', 'max_tokens: Field required (a positive integer)'));
    }
    const modelFault = faultForModel(request.body?.model);
    if (modelFault && answerFault(exchange, modelFault)) return;
    const modelReply = await script.next(request, lastUserText(request.body));
    const replySettings = settingsFor(modelReply, settings);
    if (replySettings.latencyMs > 0 && !(await exchange.pause(replySettings.latencyMs))) return;
    if (modelReply.fault?.type === 'hang') return exchange.untilClientGone();
    if (answerFault(exchange, modelReply.fault)) return;
    if (request.body?.stream === true) await writeStream(exchange, modelReply, replySettings);
    else if (modelReply.fault?.type === 'cut' || modelReply.fault?.type === 'stream-error') await exchange.cutHalfway(200, messageBody(exchange.request, modelReply, true));
    else exchange.json(200, messageBody(request, modelReply, true));
  });

  const initialSettings = { ...settings };
  const resetRequests = http.reset;
  const double = Object.assign(http, {
    baseUrl: http.url,
    script,
    settings,
    /** Also empties the script and restores the responder and settings the double started with. */
    reset() {
      resetRequests();
      script.reset();
      Object.assign(settings, initialSettings);
    },
  });
  return Object.defineProperty(double, 'modelCalls', {
    get: () => http.requests.filter((request) => request.method === 'POST' && request.path.startsWith(MESSAGES_PATH)),
  }) as typeof double & { readonly modelCalls: RecordedRequest[] };
}

/** The text of the last user message that has text (tool-result-only messages are skipped). */
export function lastUserText(body: any): string {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  for (const message of messages.toReversed()) {
    if (message?.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    const texts = (Array.isArray(message.content) ? message.content : []).filter((block: any) => block?.type === 'text');
    if (texts.length > 0) return texts.map((block: any) => block.text).join('');
  }
  return '';
}

function hasKey(request: RecordedRequest, apiKey: string): boolean {
  return request.headers.authorization === `Bearer ${apiKey}` || request.headers['x-api-key'] === apiKey;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

function errorBody(request: RecordedRequest, type: string, message: string) {
  return { type: 'error', error: { type, message }, request_id: `req_double_${request.index}` };
}

function answerFault(exchange: Exchange, fault: Fault | undefined): boolean {
  const { request } = exchange;
  const headers = { 'request-id': `req_double_${request.index}` };
  switch (fault?.type) {
    case 'status': {
      const type = fault.errorType ?? ERROR_TYPES[fault.status] ?? (fault.status >= 500 ? 'api_error' : 'invalid_request_error');
      exchange.json(fault.status, errorBody(request, type, fault.message ?? `double error ${fault.status}`), { ...headers, ...fault.headers });
      return true;
    }
    case 'rate-limit':
      exchange.json(429, errorBody(request, 'rate_limit_error', 'Number of requests has exceeded your rate limit.'), {
        ...headers,
        'retry-after': String(fault.retryAfterSeconds),
      });
      return true;
    case 'overloaded':
      exchange.json(529, errorBody(request, 'overloaded_error', 'Overloaded'), headers);
      return true;
    case 'context-length':
      exchange.json(400, errorBody(request, 'invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'), headers);
      return true;
    default:
      return false;
  }
}

const STOP_REASONS = { stop: 'end_turn', 'tool-use': 'tool_use', length: 'max_tokens' } as const;

function wireUsage(modelReply: ModelReply, request: RecordedRequest, outputTokens?: number) {
  const usage = usageOf(modelReply, request);
  return {
    input_tokens: usage.inputTokens,
    output_tokens: outputTokens ?? usage.outputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation: { ephemeral_5m_input_tokens: usage.cacheWriteTokens, ephemeral_1h_input_tokens: 0 },
    server_tool_use: null,
    service_tier: 'standard',
    inference_geo: null,
    output_tokens_details: null,
    speed: null,
  };
}

/** The message object; `complete` false gives the empty shell `message_start` carries. */
function messageBody(request: RecordedRequest, modelReply: ModelReply, complete: boolean) {
  return {
    id: `msg_double_${request.index}`,
    type: 'message',
    role: 'assistant',
    model: request.body.model,
    content: complete ? (modelReply.parts ?? []).map((part, index) => contentBlock(request, part, index, true)) : [],
    stop_reason: complete ? STOP_REASONS[stopReasonOf(modelReply)] : null,
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: wireUsage(modelReply, request, complete ? undefined : 1),
  };
}

/** A content block, whole (`complete`) or as `content_block_start` opens it before its deltas. */
function contentBlock(request: RecordedRequest, part: ReplyPart, index: number, complete: boolean) {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: complete ? part.text : '', citations: null };
    case 'thinking':
      return { type: 'thinking', thinking: complete ? part.text : '', signature: complete ? part.signature : '' };
    case 'redacted-thinking':
      return { type: 'redacted_thinking', data: part.data };
    case 'tool-call':
      return {
        type: 'tool_use',
        id: part.id ?? `toolu_double_${request.index}_${index}`,
        name: part.name,
        input: complete ? parseObject(argumentsText(part)) : {},
        caller: { type: 'direct' },
      };
  }
}

function parseObject(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

async function writeStream(exchange: Exchange, modelReply: ModelReply, settings: StreamSettings): Promise<void> {
  const { request } = exchange;
  exchange.openEventStream();
  const pacer = new EventPacer(exchange, modelReply.fault, settings.chunkDelayMs, () =>
    exchange.sendEvent(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), 'error'),
  );
  const send = (event: string, data: object) => pacer.send({ type: event, ...data }, event);
  const sendDelta = (index: number, delta: object) => pacer.sendDelta({ type: 'content_block_delta', index, delta }, 'content_block_delta');

  if (!(await send('message_start', { message: messageBody(request, modelReply, false) }))) return;
  if (!(await send('ping', {}))) return;
  for (const [index, part] of (modelReply.parts ?? []).entries()) {
    if (!(await send('content_block_start', { index, content_block: contentBlock(request, part, index, false) }))) return;
    if (part.type === 'text') {
      for (const piece of chunkText(part.text, settings.chunkSize)) {
        if (!(await sendDelta(index, { type: 'text_delta', text: piece }))) return;
      }
    } else if (part.type === 'thinking') {
      for (const piece of chunkText(part.text, settings.chunkSize)) {
        if (!(await sendDelta(index, { type: 'thinking_delta', thinking: piece }))) return;
      }
      if (!(await send('content_block_delta', { index, delta: { type: 'signature_delta', signature: part.signature } }))) return;
    } else if (part.type === 'tool-call') {
      if (!(await send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } }))) return;
      for (const piece of chunkText(argumentsText(part), settings.chunkSize)) {
        if (!(await sendDelta(index, { type: 'input_json_delta', partial_json: piece }))) return;
      }
    }
    if (!(await send('content_block_stop', { index }))) return;
  }
  if (!(await pacer.beforeClosing())) return;
  const { input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens } = wireUsage(modelReply, request);
  const delta = { stop_reason: STOP_REASONS[stopReasonOf(modelReply)], stop_sequence: null, stop_details: null, container: null };
  // message_delta counts are cumulative for the whole message.
  const usage = { input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens, server_tool_use: null, output_tokens_details: null };
  if (!(await send('message_delta', { delta, usage }))) return;
  await send('message_stop', {});
  pacer.end();
}
