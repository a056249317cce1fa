import type { InboundMessage, InboundSink } from '../../src/core/index.js';

/** Older than this, a message's date is nonsense (Telegram, Slack and Feishu are all younger). */
const EARLIEST_SENT_AT_MS = Date.UTC(2000, 0, 1);
/** Clocks drift; a day ahead of ours is no longer drift. */
const MAX_FUTURE_MS = 24 * 60 * 60 * 1000;

/** `String.prototype.toWellFormed` and `isWellFormed` are ES2024 (Node 20+); the project's lib is ES2023. */
type WellFormable = string & { toWellFormed(): string; isWellFormed(): boolean };

/**
 * A string PostgreSQL and every JSON encoder accept: lone surrogates (`\uD800`, valid JSON, invalid
 * Unicode) and NUL (refused by PostgreSQL text and jsonb) become U+FFFD.
 */
export function wellFormedText(text: string): string {
  return (text as WellFormable).toWellFormed().replaceAll('\u0000', '\uFFFD');
}

/**
 * The last step of every channel's inbound path: every string of the normalized message made well formed
 * (text, names, titles, ids, keys), and a `sentAt` that is not finite, before 2000 or more than a day
 * ahead of `receivedAt` replaced by `receivedAt`. Bad but authentic data then cannot fail the turn's flush.
 */
export function sanitizeInbound(message: InboundMessage, receivedAt: number): InboundMessage {
  const clean = wellFormedValues(message) as InboundMessage;
  const sentAt = clean.sentAt;
  const sane = Number.isFinite(sentAt) && sentAt >= EARLIEST_SENT_AT_MS && sentAt <= receivedAt + MAX_FUTURE_MS;
  return sane ? clean : { ...clean, sentAt: receivedAt };
}

/** The sink every transport of a channel hands its messages to, sanitized once here. */
export function sanitizingSink(sink: InboundSink, now: () => number = Date.now): InboundSink {
  return (message) => sink(sanitizeInbound(message, now()));
}

/** `value` itself when every string in it is well formed already (nearly every message), else a cleaned copy. */
function wellFormedValues(value: unknown): unknown {
  return needsCleaning(value) ? cleaned(value) : value;
}

function needsCleaning(value: unknown): boolean {
  if (typeof value === 'string') return !(value as WellFormable).isWellFormed() || value.includes('\u0000');
  if (Array.isArray(value)) return value.some(needsCleaning);
  if (typeof value === 'object' && value !== null) return Object.values(value).some(needsCleaning);
  return false;
}

function cleaned(value: unknown): unknown {
  if (typeof value === 'string') return wellFormedText(value);
  if (Array.isArray(value)) return value.map(cleaned);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, cleaned(entry)]));
  }
  return value;
}
