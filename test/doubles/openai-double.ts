import { startHttpDouble, type Exchange, type HttpDouble, type RecordedRequest } from './http-double.js';
import { countPromptTokens } from './prompt-tokens.js';
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
  type Responder,
  type StreamSettings,
} from './model-script.js';

export interface OpenAiDoubleOptions extends Partial<StreamSettings> {
  /** Answers when no scripted reply is queued; default: `You said: <last user text>`. */
  responder?: Responder;
  /** When set, a request without `Authorization: Bearer <apiKey>` gets 401. */
  apiKey?: string;
  /** The model `GET /v1/models` lists. */
  model?: string;
}

export interface OpenAiSettings extends StreamSettings {
  /**
   * Set: the double counts each prompt with the real tokenizer, refuses one over this many tokens with the
   * API's `context_length_exceeded` error (as OpenAI does), and reports the exact count as `prompt_tokens`.
   */
  contextWindow: number | undefined;
}

export interface OpenAiDouble extends HttpDouble {
  /** What OPENAI_BASE_URL should be: `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  script: ReplyScript;
  /** Latency, chunking and the context window for every reply; change them at any time. */
  settings: OpenAiSettings;
  /** Prompts refused as over the context window (see `settings.contextWindow`). */
  readonly contextLengthErrors: number;
  /** Only the `POST /v1/chat/completions` requests. */
  readonly modelCalls: RecordedRequest[];
  /** Only the `POST /v1/embeddings` requests. */
  readonly embeddingCalls: RecordedRequest[];
  /** Every `POST /v1/audio/transcriptions`, its multipart fields read. */
  transcriptions: Transcription[];
  /** What the transcription endpoint answers: text, or an HTTP status to fail with. Default: a fixed sentence. */
  transcriber: (request: Transcription) => string | { status: number };
}

export interface Transcription {
  model: string;
  fileName: string;
  mimeType: string;
  bytes: Buffer;
}

export const DEFAULT_TRANSCRIPT = 'Please remind me to water the plants tomorrow';
/** What the double bills a transcription: audio tokens (gpt-4o-*-transcribe), or seconds (whisper-1). */
export const TRANSCRIPTION_INPUT_TOKENS = 120;
export const TRANSCRIPTION_SECONDS = 3;

const COMPLETIONS_PATH = '/v1/chat/completions';
const EMBEDDINGS_PATH = '/v1/embeddings';
/** Dimensions of the double's embeddings. */
export const DOUBLE_EMBEDDING_DIMENSIONS = 64;
const TRANSCRIPTIONS_PATH = '/v1/audio/transcriptions';

/** A local stand-in for the OpenAI Chat Completions API (JSON and SSE), for the real `openai` SDK. */
export async function startOpenAiDouble(options: OpenAiDoubleOptions = {}): Promise<OpenAiDouble> {
  const script = new ReplyScript(options.responder);
  const settings: OpenAiSettings = {
    latencyMs: options.latencyMs ?? DEFAULT_STREAM_SETTINGS.latencyMs,
    chunkSize: options.chunkSize ?? DEFAULT_STREAM_SETTINGS.chunkSize,
    chunkDelayMs: options.chunkDelayMs ?? DEFAULT_STREAM_SETTINGS.chunkDelayMs,
    contextWindow: undefined,
  };
  let contextLengthErrors = 0;
  const transcriptions: Transcription[] = [];
  const defaultTranscriber = (_request: Transcription): string | { status: number } => DEFAULT_TRANSCRIPT;

  /** Whisper's wire format: multipart `file` and `model` in, `{ text }` out (json is the default response_format). */
  async function transcribe(exchange: Exchange): Promise<void> {
    const { request } = exchange;
    const contentType = String(request.headers['content-type'] ?? '');
    if (!contentType.includes('multipart/form-data')) return exchange.json(400, errorBody('Expected multipart/form-data', 'invalid_request_error'));
    const form = await new Response(new Uint8Array(request.rawBytes), { headers: { 'content-type': contentType } }).formData();
    const file = form.get('file');
    const model = form.get('model');
    if (typeof file === 'string' || file === null || typeof model !== 'string') {
      return exchange.json(400, errorBody("you must provide a 'file' and a 'model'", 'invalid_request_error'));
    }
    const transcription: Transcription = { model, fileName: file.name, mimeType: file.type, bytes: Buffer.from(await file.arrayBuffer()) };
    transcriptions.push(transcription);
    const answer = double.transcriber(transcription);
    if (typeof answer !== 'string') return exchange.json(answer.status, errorBody('transcription failed in the double', answer.status >= 500 ? 'server_error' : 'invalid_request_error'));
    // as OpenAI bills them: whisper-1 by the second, the gpt-4o transcription models by the token
    const usage = model.startsWith('whisper')
      ? { type: 'duration', seconds: TRANSCRIPTION_SECONDS }
      : { type: 'tokens', input_tokens: TRANSCRIPTION_INPUT_TOKENS, output_tokens: Math.ceil(answer.length / 4), total_tokens: TRANSCRIPTION_INPUT_TOKENS + Math.ceil(answer.length / 4), input_token_details: { audio_tokens: TRANSCRIPTION_INPUT_TOKENS, text_tokens: 0 } };
    exchange.json(200, { text: answer, usage });
  }

  const http = await startHttpDouble(async (exchange) => {
    const { request } = exchange;
    const path = request.path.split('?')[0];
    if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
      return exchange.json(401, errorBody('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
    }
    if (request.method === 'GET' && path === '/v1/models') {
      const model = options.model ?? 'gpt-4o-mini';
      return exchange.json(200, { object: 'list', data: [{ id: model, object: 'model', created: 0, owned_by: 'double' }] });
    }
    if (request.method === 'POST' && path === EMBEDDINGS_PATH) return answerEmbeddings(exchange, request.body);
    if (request.method === 'POST' && path === TRANSCRIPTIONS_PATH) return transcribe(exchange);
    if (request.method !== 'POST' || path !== COMPLETIONS_PATH) {
      return exchange.json(404, errorBody(`Unknown request URL: ${request.method} ${path}`, 'invalid_request_error'));
    }
    for (const field of ['max_tokens', 'max_completion_tokens']) {
      const cap = request.body?.[field];
      if (cap !== undefined && cap !== null && (!Number.isInteger(cap) || cap < 1)) {
        return exchange.json(400, errorBody(`Invalid '${field}': expected a positive integer.`, 'invalid_request_error', 'invalid_value', field));
      }
    }
    let promptTokens: number | undefined;
    if (settings.contextWindow !== undefined) {
      promptTokens = await countPromptTokens(request.body);
      if (promptTokens > settings.contextWindow) {
        contextLengthErrors++;
        return exchange.json(400, contextLengthError(settings.contextWindow, promptTokens));
      }
    }
    const modelFault = faultForModel(request.body?.model);
    if (modelFault && answerFault(exchange, modelFault)) return;
    const scripted = await script.next(request, lastUserText(request.body));
    const modelReply = promptTokens === undefined || scripted.usage?.inputTokens !== undefined ? scripted : { ...scripted, usage: { ...scripted.usage, inputTokens: promptTokens } };
    const replySettings = settingsFor(modelReply, settings);
    if (replySettings.latencyMs > 0 && !(await exchange.pause(replySettings.latencyMs))) return;
    if (modelReply.fault?.type === 'hang') return exchange.untilClientGone();
    if (answerFault(exchange, modelReply.fault)) return;
    if (request.body?.stream === true) await writeStream(exchange, modelReply, replySettings);
    else await writeCompletion(exchange, modelReply);
  });

  const initialSettings = { ...settings };
  const resetRequests = http.reset;
  const double = Object.assign(http, {
    baseUrl: `${http.url}/v1`,
    script,
    settings,
    transcriptions,
    transcriber: defaultTranscriber,
    /** Also empties the script and restores the responder and settings the double started with. */
    reset() {
      resetRequests();
      script.reset();
      Object.assign(settings, initialSettings);
      contextLengthErrors = 0;
      transcriptions.length = 0;
      double.transcriber = defaultTranscriber;
    },
  });
  Object.defineProperty(double, 'contextLengthErrors', { get: () => contextLengthErrors });
  Object.defineProperty(double, 'embeddingCalls', {
    get: () => http.requests.filter((request) => request.method === 'POST' && request.path.startsWith(EMBEDDINGS_PATH)),
  });
  return Object.defineProperty(double, 'modelCalls', {
    get: () => http.requests.filter((request) => request.method === 'POST' && request.path.startsWith(COMPLETIONS_PATH)),
  }) as typeof double & { readonly modelCalls: RecordedRequest[]; readonly embeddingCalls: RecordedRequest[]; readonly contextLengthErrors: number };
}

/**
 * A deterministic stand-in for an embedding model: each word (lower case) is hashed into one of 64 dimensions and
 * the vector is normalized, so texts sharing words are close by cosine distance. Answers `encoding_format`
 * `float` with numbers and `base64` (the SDK's default) with little-endian float32, as OpenAI does.
 */
export function doubleEmbedding(text: string): number[] {
  const vector = new Array<number>(DOUBLE_EMBEDDING_DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let hash = 2166136261;
    for (const character of word) hash = Math.imul(hash ^ character.codePointAt(0)!, 16777619) >>> 0;
    vector[hash % DOUBLE_EMBEDDING_DIMENSIONS]! += 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

function answerEmbeddings(exchange: Exchange, body: any): void {
  const inputs: unknown[] = Array.isArray(body?.input) ? body.input : [body?.input];
  if (typeof body?.model !== 'string' || inputs.length === 0 || inputs.some((input) => typeof input !== 'string' || input === '')) {
    return exchange.json(400, errorBody("'input' must be a non-empty string or array of strings and 'model' is required", 'invalid_request_error'));
  }
  const base64 = body.encoding_format === 'base64';
  const data = (inputs as string[]).map((input, index) => {
    const embedding = doubleEmbedding(input);
    return { object: 'embedding', index, embedding: base64 ? Buffer.from(new Float32Array(embedding).buffer).toString('base64') : embedding };
  });
  const tokens = (inputs as string[]).reduce((sum, input) => sum + Math.ceil(input.length / 4), 0);
  exchange.json(200, { object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
}

/** The text of the last user message (string content or text parts). */
export function lastUserText(body: any): string {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const last = messages.findLast((message) => message?.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return (Array.isArray(last.content) ? last.content : [])
    .filter((part: any) => part?.type === 'text')
    .map((part: any) => part.text)
    .join('');
}

function answerFault(exchange: Exchange, fault: Fault | undefined): boolean {
  switch (fault?.type) {
    case 'status':
      exchange.json(
        fault.status,
        errorBody(fault.message ?? `double error ${fault.status}`, fault.errorType ?? (fault.status >= 500 ? 'server_error' : 'invalid_request_error'), fault.code),
        fault.headers,
      );
      return true;
    case 'rate-limit':
      exchange.json(429, errorBody('Rate limit reached for requests.', 'requests', 'rate_limit_exceeded'), {
        'retry-after': String(fault.retryAfterSeconds),
      });
      return true;
    case 'overloaded':
      exchange.json(503, errorBody('The engine is currently overloaded, please try again later.', 'server_error'));
      return true;
    case 'context-length':
      exchange.json(400, contextLengthError(128_000, 131_072));
      return true;
    default:
      return false;
  }
}

function contextLengthError(window: number, tokens: number) {
  return errorBody(
    `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
    'invalid_request_error',
    'context_length_exceeded',
    'messages',
  );
}

function errorBody(message: string, type: string, code: string | null = null, param: string | null = null) {
  return { error: { message, type, param, code } };
}

const FINISH_REASONS = { stop: 'stop', 'tool-use': 'tool_calls', length: 'length' } as const;

function wireUsage(modelReply: ModelReply, request: RecordedRequest) {
  const usage = usageOf(modelReply, request);
  const prompt = usage.inputTokens + usage.cacheReadTokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.outputTokens,
    total_tokens: prompt + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

async function writeStream(exchange: Exchange, modelReply: ModelReply, settings: StreamSettings): Promise<void> {
  const { request } = exchange;
  const id = `chatcmpl-double-${request.index}`;
  const created = Math.floor(Date.now() / 1000);
  const model = request.body.model;
  const includeUsage = request.body.stream_options?.include_usage === true;
  const chunk = (delta: object, finishReason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    system_fingerprint: 'fp_double',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  exchange.openEventStream();
  const pacer = new EventPacer(exchange, modelReply.fault, settings.chunkDelayMs, () =>
    exchange.sendEvent(JSON.stringify(errorBody('The server had an error while processing your request.', 'server_error'))),
  );
  if (!(await pacer.send(chunk({ role: 'assistant', content: '', refusal: null })))) return;
  let toolIndex = 0;
  for (const part of modelReply.parts ?? []) {
    if (part.type === 'text' || part.type === 'thinking') {
      const field = part.type === 'text' ? 'content' : 'reasoning_content';
      for (const piece of chunkText(part.text, settings.chunkSize)) {
        if (!(await pacer.sendDelta(chunk({ [field]: piece })))) return;
      }
    } else if (part.type === 'tool-call') {
      const index = toolIndex++;
      const callId = part.id ?? `call_double_${request.index}_${index}`;
      const start = { index, id: callId, type: 'function', function: { name: part.name, arguments: '' } };
      if (!(await pacer.sendDelta(chunk({ tool_calls: [start] })))) return;
      for (const piece of chunkText(argumentsText(part), settings.chunkSize)) {
        if (!(await pacer.sendDelta(chunk({ tool_calls: [{ index, function: { arguments: piece } }] })))) return;
      }
    }
  }
  if (!(await pacer.beforeClosing())) return;
  await pacer.send(chunk({}, FINISH_REASONS[stopReasonOf(modelReply)]));
  if (includeUsage) {
    await pacer.send({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_double', choices: [], usage: wireUsage(modelReply, request) });
  }
  await pacer.send('[DONE]');
  pacer.end();
}

async function writeCompletion(exchange: Exchange, modelReply: ModelReply): Promise<void> {
  const { request } = exchange;
  const parts = modelReply.parts ?? [];
  const text = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const reasoning = parts.flatMap((part) => (part.type === 'thinking' ? [part.text] : [])).join('');
  const toolCalls = parts.flatMap((part, index) =>
    part.type === 'tool-call'
      ? [{ id: part.id ?? `call_double_${request.index}_${index}`, type: 'function', function: { name: part.name, arguments: argumentsText(part) } }]
      : [],
  );
  const body = {
    id: `chatcmpl-double-${request.index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.body.model,
    system_fingerprint: 'fp_double',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text || null,
          refusal: null,
          annotations: [],
          ...(reasoning ? { reasoning_content: reasoning } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: FINISH_REASONS[stopReasonOf(modelReply)],
      },
    ],
    usage: wireUsage(modelReply, request),
  };
  if (modelReply.fault?.type === 'cut' || modelReply.fault?.type === 'stream-error') {
    await exchange.cutHalfway(200, body);
    return;
  }
  exchange.json(200, body);
}

