import { createHash } from 'node:crypto';
import { RandomIdGenerator, type IdGenerator } from '@opentelemetry/sdk-trace';

/**
 * A turn's trace id and root span id, derived from its turn id: every attempt of the turn (a retry, a takeover after
 * a crash, the resumption after an approval) finds the same trace without storing anything or any I/O.
 */
export function turnSpanIds(turnId: string): { traceId: string; spanId: string } {
  const digest = createHash('sha256').update(`turn:${turnId}`).digest('hex');
  // all zeros is invalid in W3C trace context; a SHA-256 prefix of zeros is not going to happen, but costs nothing to rule out
  const traceId = /^0+$/.test(digest.slice(0, 32)) ? `1${digest.slice(1, 32)}` : digest.slice(0, 32);
  const spanId = /^0+$/.test(digest.slice(32, 48)) ? `1${digest.slice(33, 48)}` : digest.slice(32, 48);
  return { traceId, spanId };
}

/**
 * The SDK's random ids, except for the one span started right after `next(...)`: the turn's root span, whose ids
 * come from the turn. `startSpan` asks for them synchronously, so nothing else can take them in between.
 */
export class TurnIdGenerator implements IdGenerator {
  readonly #random = new RandomIdGenerator();
  #traceId: string | undefined;
  #spanId: string | undefined;

  next(ids: { traceId: string; spanId: string }): void {
    this.#traceId = ids.traceId;
    this.#spanId = ids.spanId;
  }

  generateTraceId(): string {
    const forced = this.#traceId;
    this.#traceId = undefined;
    return forced ?? this.#random.generateTraceId();
  }

  generateSpanId(): string {
    const forced = this.#spanId;
    this.#spanId = undefined;
    return forced ?? this.#random.generateSpanId();
  }
}
