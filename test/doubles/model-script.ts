import type { Exchange, RecordedRequest } from './http-double.js';

/**
 * What the OpenAI and Anthropic doubles answer, written once for both: a reply is a list of
 * parts (text, thinking, tool calls) plus optional timing and faults. Each double turns it into
 * its own wire format, streamed or not, as the request asks.
 */
export type ReplyPart =
  | { type: 'text'; text: string }
  /** Anthropic thinking (the OpenAI double streams it as `reasoning_content`, as DeepSeek does). */
  | { type: 'thinking'; text: string; signature: string }
  | { type: 'redacted-thinking'; data: string }
  /** `arguments` as an object (sent as JSON) or as raw text (sent as is, valid or not). */
  | { type: 'tool-call'; name: string; arguments: unknown; id?: string };

export type Fault =
  /** Any error status with the provider's error body. */
  | { type: 'status'; status: number; message?: string; errorType?: string; code?: string; headers?: Record<string, string> }
  | { type: 'rate-limit'; retryAfterSeconds: number }
  /** Anthropic 529 overloaded_error (the OpenAI double answers 503). */
  | { type: 'overloaded' }
  /** The provider's "prompt too long" 400. */
  | { type: 'context-length' }
  /** Destroy the socket after `afterChunks` content deltas (non-streamed: halfway through the body). */
  | { type: 'cut'; afterChunks: number }
  /** A provider error event in the stream after `afterChunks` content deltas. */
  | { type: 'stream-error'; afterChunks: number }
  /** Never answer; the request stays open until the client goes away. */
  | { type: 'hang' };

export interface ReplyUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

export interface ModelReply {
  parts?: ReplyPart[];
  /** Default: `tool-use` when there is a tool call, else `stop`. */
  stopReason?: 'stop' | 'tool-use' | 'length';
  /** Default: about a token per four characters of request and reply. */
  usage?: ReplyUsage;
  fault?: Fault;
  /** Overrides the double's settings for this reply. */
  latencyMs?: number;
  chunkSize?: number;
  chunkDelayMs?: number;
}

/**
 * A model the doubles always refuse as overloaded, whatever the script says (a primary that is down, for
 * failover tests): any model name containing `overloaded`. The OpenAI double answers 503, the Anthropic double
 * 529 `overloaded_error`; the script is not consumed.
 */
export const ALWAYS_OVERLOADED_MODEL = /overloaded/i;

export function faultForModel(model: unknown): Fault | undefined {
  return typeof model === 'string' && ALWAYS_OVERLOADED_MODEL.test(model) ? { type: 'overloaded' } : undefined;
}

/** A string is shorthand for a text reply. */
export type Reply = string | ModelReply;

/**
 * The user's own words in a user message: CONTRACT §4 puts them last, after a sender/time envelope line
 * (`[…]`) and any group context block; both are left out here.
 */
export function userWordsOf(content: string): string {
  const envelope = /(?:^|\n\n)\[(?!Messages since)[^\n\]]*\]\n/.exec(content);
  return envelope ? content.slice(envelope.index + envelope[0].length) : content;
}

/** Answers a request when the script's queue is empty; `lastUserText` is the user's own words (see userWordsOf). */
export type Responder = (request: RecordedRequest, lastUserText: string) => Reply | Promise<Reply>;

export const echoResponder: Responder = (_request, lastUserText) => `You said: ${lastUserText}`;

export interface StreamSettings {
  /** Delay before the first byte of every response. */
  latencyMs: number;
  /** Characters per streamed delta. */
  chunkSize: number;
  /** Delay between streamed deltas. */
  chunkDelayMs: number;
}

export const DEFAULT_STREAM_SETTINGS: StreamSettings = { latencyMs: 0, chunkSize: 8, chunkDelayMs: 0 };

/** Scripted replies, answered in order; after them the responder (by default an echo) answers. */
export class ReplyScript {
  private readonly queue: Reply[] = [];
  private responder: Responder;

  constructor(private readonly initialResponder: Responder = echoResponder) {
    this.responder = initialResponder;
  }

  push(...replies: Reply[]): this {
    this.queue.push(...replies);
    return this;
  }

  respondWith(responder: Responder): this {
    this.responder = responder;
    return this;
  }

  /** Drops the queued replies (the responder stays). */
  clear(): this {
    this.queue.length = 0;
    return this;
  }

  /** Drops the queued replies and restores the responder the script started with. */
  reset(): this {
    this.responder = this.initialResponder;
    return this.clear();
  }

  get pending(): number {
    return this.queue.length;
  }

  async next(request: RecordedRequest, lastUserText: string): Promise<ModelReply> {
    const next = this.queue.length > 0 ? this.queue.shift()! : await this.responder(request, userWordsOf(lastUserText));
    return typeof next === 'string' ? { parts: [{ type: 'text', text: next }] } : next;
  }
}

/** Builders for the common replies and faults. */
export const reply = {
  text: (text: string, extra: ModelReply = {}): ModelReply => ({ ...extra, parts: [{ type: 'text', text }] }),
  /** `text` goes before the call, as a model says what it is about to do. */
  toolCall: (name: string, args: unknown, { id, text, ...extra }: ModelReply & { id?: string; text?: string } = {}): ModelReply => ({
    ...extra,
    parts: [...(text ? [{ type: 'text' as const, text }] : []), { type: 'tool-call', name, arguments: args, ...(id ? { id } : {}) }],
  }),
  toolCalls: (calls: Array<{ name: string; arguments: unknown; id?: string }>, extra: ModelReply = {}): ModelReply => ({
    ...extra,
    parts: calls.map((call) => ({ type: 'tool-call' as const, ...call })),
  }),
  thinking: (thinking: string, signature: string, then: ReplyPart[] | string): ModelReply => ({
    parts: [{ type: 'thinking', text: thinking, signature }, ...(typeof then === 'string' ? [{ type: 'text' as const, text: then }] : then)],
  }),
  rateLimited: (retryAfterSeconds = 1): ModelReply => ({ fault: { type: 'rate-limit', retryAfterSeconds } }),
  serverError: (status = 500): ModelReply => ({ fault: { type: 'status', status } }),
  overloaded: (): ModelReply => ({ fault: { type: 'overloaded' } }),
  contextTooLong: (): ModelReply => ({ fault: { type: 'context-length' } }),
  badRequest: (message = 'invalid request'): ModelReply => ({ fault: { type: 'status', status: 400, message } }),
  unauthorized: (): ModelReply => ({ fault: { type: 'status', status: 401, message: 'invalid api key' } }),
  cutMidStream: (text = 'This answer will be cut off in the middle', afterChunks = 2): ModelReply => ({
    parts: [{ type: 'text', text }],
    fault: { type: 'cut', afterChunks },
    chunkSize: 4,
  }),
  streamError: (text = 'This answer breaks with an error event', afterChunks = 2): ModelReply => ({
    parts: [{ type: 'text', text }],
    fault: { type: 'stream-error', afterChunks },
    chunkSize: 4,
  }),
  hang: (): ModelReply => ({ fault: { type: 'hang' } }),
};

export function chunkText(text: string, size: number): string[] {
  if (!text) return [];
  const chunks: string[] = [];
  for (let start = 0; start < text.length; start += Math.max(1, size)) chunks.push(text.slice(start, start + Math.max(1, size)));
  return chunks;
}

export function argumentsText(part: Extract<ReplyPart, { type: 'tool-call' }>): string {
  return typeof part.arguments === 'string' ? part.arguments : JSON.stringify(part.arguments ?? {});
}

export function stopReasonOf(modelReply: ModelReply): 'stop' | 'tool-use' | 'length' {
  return modelReply.stopReason ?? (modelReply.parts?.some((part) => part.type === 'tool-call') ? 'tool-use' : 'stop');
}

export function usageOf(modelReply: ModelReply, request: RecordedRequest): Required<ReplyUsage> {
  const outputCharacters = (modelReply.parts ?? []).reduce(
    (sum, part) => sum + (part.type === 'tool-call' ? argumentsText(part).length : part.type === 'redacted-thinking' ? 0 : part.text.length),
    0,
  );
  return {
    inputTokens: modelReply.usage?.inputTokens ?? Math.ceil(request.rawBody.length / 4),
    outputTokens: modelReply.usage?.outputTokens ?? Math.ceil(outputCharacters / 4) + 1,
    cacheReadTokens: modelReply.usage?.cacheReadTokens ?? 0,
    cacheWriteTokens: modelReply.usage?.cacheWriteTokens ?? 0,
  };
}

export function settingsFor(modelReply: ModelReply, settings: StreamSettings): StreamSettings {
  return {
    latencyMs: modelReply.latencyMs ?? settings.latencyMs,
    chunkSize: modelReply.chunkSize ?? settings.chunkSize,
    chunkDelayMs: modelReply.chunkDelayMs ?? settings.chunkDelayMs,
  };
}

/**
 * Writes a reply's server-sent events in order, pacing the content deltas and breaking the
 * stream off where a `cut` or `stream-error` fault says.
 */
export class EventPacer {
  private deltasSent = 0;
  private broken = false;

  constructor(
    private readonly exchange: Exchange,
    private readonly fault: Fault | undefined,
    private readonly chunkDelayMs: number,
    /** Writes the provider's mid-stream error event. */
    private readonly sendErrorEvent: () => Promise<void>,
  ) {}

  /** False once the stream is over (broken off, or the client left): stop writing. */
  async send(data: unknown, event?: string): Promise<boolean> {
    if (this.broken || this.exchange.clientGone.aborted) return false;
    await this.exchange.sendEvent(typeof data === 'string' ? data : JSON.stringify(data), event);
    return true;
  }

  /** A content delta: counts toward `afterChunks`, and paced by `chunkDelayMs`. */
  async sendDelta(data: unknown, event?: string): Promise<boolean> {
    if (this.broken || this.exchange.clientGone.aborted) return false;
    const fault = this.fault;
    if ((fault?.type === 'cut' || fault?.type === 'stream-error') && this.deltasSent >= fault.afterChunks) return this.breakOff();
    if (this.deltasSent > 0 && this.chunkDelayMs > 0 && !(await this.exchange.pause(this.chunkDelayMs))) return false;
    this.deltasSent += 1;
    return this.send(data, event);
  }

  /** Call before the closing events (stop reason, usage): a fault not yet triggered strikes here. */
  async beforeClosing(): Promise<boolean> {
    if (this.broken || this.exchange.clientGone.aborted) return false;
    if (this.fault?.type === 'cut' || this.fault?.type === 'stream-error') return this.breakOff();
    return true;
  }

  private async breakOff(): Promise<false> {
    this.broken = true;
    if (this.fault?.type === 'cut') await this.exchange.cut();
    else {
      await this.sendErrorEvent();
      this.exchange.response.end();
    }
    return false;
  }

  /** Ends the response unless the stream was broken off. */
  end(): void {
    if (!this.broken && !this.exchange.response.destroyed) this.exchange.response.end();
  }
}
