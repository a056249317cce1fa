import type { RecordedRequest } from '../test/doubles/http-double.js';
import type { OpenAiDouble } from '../test/doubles/openai-double.js';
import type { TelegramCall, TelegramDouble } from '../test/doubles/telegram-double.js';

/** Every benchmark message carries a token `m<seq>k`; the model double echoes the tokens it was given. */
export const tokenOf = (seq: number) => `m${seq}k`;
const TOKENS = /\bm(\d+)k\b/g;

export function tokensIn(text: string): number[] {
  return [...text.matchAll(TOKENS)].map((match) => Number(match[1]));
}

export interface TrackedMessage {
  seq: number;
  session: string;
  /** Date.now() when the webhook POST started (the doubles stamp with Date.now() too). */
  postAt: number;
  ackMs?: number;
  ackStatus?: number;
  /** `at` of the first sendMessage carrying the token. */
  answeredAt?: number;
  answers: number;
  /** Model time spent on this message: receivedAt→endedAt of the completions requests that carried it. */
  modelMs: number;
  modelRequests: number;
  /** When the model double first saw the message, and when its last request for it ended. */
  modelFirstReceivedAt?: number;
  modelLastEndedAt?: number;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: any) => (part?.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('\n');
}

/** The user messages after the last assistant message: what this turn asks about. */
export function trailingUserText(body: any): string {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const texts: string[] = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === 'assistant') break;
    if (message?.role === 'user') texts.unshift(textOf(message.content));
  }
  return texts.join('\n');
}

/** Answers with the tokens of the turn's own user messages, so every collected message is visibly answered. */
export function tokenEchoResponder(request: RecordedRequest): string {
  const tokens = tokensIn(trailingUserText(request.body));
  return tokens.length > 0 ? `Answer to ${tokens.map(tokenOf).join(' ')}.` : 'Answer.';
}

/**
 * Follows the benchmark's messages from POST to the Telegram double's sendMessage, and attributes the OpenAI
 * double's request time to them.
 */
export class MessageTracker {
  readonly messages = new Map<number, TrackedMessage>();
  private outstandingCount = 0;
  private readonly listeners = new Set<(message: TrackedMessage) => void>();
  private modelCursor = 0;
  duplicateAnswers = 0;
  unknownAnswers = 0;

  constructor(
    telegram: TelegramDouble,
    private readonly openai: OpenAiDouble,
  ) {
    // Observe sendMessage as the double records it (the array's own push, called once per API call).
    const calls = telegram.calls;
    const push = calls.push.bind(calls);
    calls.push = (...items: TelegramCall[]) => {
      const length = push(...items);
      for (const call of items) if (call.method === 'sendMessage') this.onSendMessage(call);
      return length;
    };
  }

  get outstanding(): number {
    return this.outstandingCount;
  }

  register(seq: number, session: string): TrackedMessage {
    const message: TrackedMessage = { seq, session, postAt: Date.now(), answers: 0, modelMs: 0, modelRequests: 0 };
    this.messages.set(seq, message);
    this.outstandingCount += 1;
    return message;
  }

  /** Called once per answered message (first answer only). */
  onAnswered(listener: (message: TrackedMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private onSendMessage(call: TelegramCall): void {
    for (const seq of tokensIn(String(call.params.text ?? ''))) {
      const message = this.messages.get(seq);
      if (!message) {
        this.unknownAnswers += 1;
        continue;
      }
      message.answers += 1;
      if (message.answers > 1) {
        this.duplicateAnswers += 1;
        continue;
      }
      message.answeredAt = call.at;
      this.outstandingCount -= 1;
      for (const listener of this.listeners) listener(message);
    }
  }

  /** Waits until the given messages are all answered or the timeout passes; returns how many are still unanswered. */
  async waitAnswered(seqs: number[], timeoutMs: number): Promise<number> {
    const unanswered = () => seqs.filter((seq) => this.messages.get(seq)?.answeredAt === undefined).length;
    if (unanswered() === 0) return 0;
    return new Promise<number>((resolve) => {
      let left = unanswered();
      const timer = setTimeout(() => {
        stop();
        resolve(unanswered());
      }, timeoutMs);
      const wanted = new Set(seqs);
      const stop = this.onAnswered((message) => {
        if (!wanted.has(message.seq)) return;
        left -= 1;
        if (left <= 0) {
          clearTimeout(timer);
          stop();
          resolve(unanswered());
        }
      });
    });
  }

  /** Attributes finished completions requests (since the last call) to the messages whose tokens they carried. */
  collectModelTimes(): void {
    const requests = this.openai.requests;
    while (this.modelCursor < requests.length) {
      const request = requests[this.modelCursor]!;
      if (request.endedAt === undefined) break; // still running; look again next time
      this.modelCursor += 1;
      if (request.method !== 'POST' || !request.path.startsWith('/v1/chat/completions')) continue;
      for (const seq of tokensIn(trailingUserText(request.body))) {
        const message = this.messages.get(seq);
        if (!message) continue;
        message.modelMs += request.endedAt - request.receivedAt;
        message.modelRequests += 1;
        message.modelFirstReceivedAt = Math.min(message.modelFirstReceivedAt ?? Infinity, request.receivedAt);
        message.modelLastEndedAt = Math.max(message.modelLastEndedAt ?? -Infinity, request.endedAt);
      }
      // the double keeps every request; drop the bodies once read (thousands of prompts add up)
      request.body = undefined;
      request.rawBody = '';
    }
  }
}
