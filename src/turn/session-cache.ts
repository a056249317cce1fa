import type { ChatMessage } from '../core/chat-message.js';
import { SizeBoundedLru } from '../core/size-bounded-lru.js';

export type HistoryMessage = ChatMessage & { createdAt?: Date };

/** A session as turns start from it: what one read of PostgreSQL would give, at a history version. */
export interface CachedSession {
  sessionId: string;
  summary: string | undefined;
  /** As the model may see it (a message left out of context is a note), oldest first; never mutated. */
  history: readonly HistoryMessage[];
  /** The session's history version in Redis when this was read (see SessionQueue); '' when it had none. */
  version: string;
}

interface Staged {
  sessionKey: string;
  base: string;
  messages: HistoryMessage[];
}

/**
 * The sessions this process answered lately, so a returning session's turn reads nothing from PostgreSQL: an entry
 * is used only at the version the queue reports for the session (every stored turn, /new and summary moves it on,
 * in whichever process), and a turn's own stored messages are appended once its release shows that nobody else
 * wrote in between. Bounded by an estimate of its bytes; the least recently used session goes first.
 */
export class SessionCache {
  readonly #entries: SizeBoundedLru<CachedSession>;
  readonly #staged = new Map<string, Staged>();

  constructor(
    readonly maxBytes: number,
    /** Messages kept per session (the newest): as many as a read loads. */
    readonly maxMessages: number,
  ) {
    this.#entries = new SizeBoundedLru(maxBytes);
  }

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#entries.bytes;
  }

  /** The session at exactly this version; an unknown version ('') never matches. */
  get(sessionKey: string, version: string | undefined): CachedSession | undefined {
    const entry = this.#entries.peek(sessionKey);
    if (!entry || !version || entry.version !== version) return undefined;
    return this.#entries.get(sessionKey);
  }

  put(sessionKey: string, session: CachedSession): void {
    this.forget(sessionKey);
    if (this.maxBytes <= 0) return;
    const history = session.history.length > this.maxMessages ? session.history.slice(-this.maxMessages) : session.history;
    const bytes = (session.summary?.length ?? 0) * 2 + history.reduce((sum, message) => sum + bytesOf(message), 0);
    if (bytes > this.maxBytes) return;
    this.#entries.set(sessionKey, { ...session, history }, bytes);
  }

  forget(sessionKey: string): void {
    this.#entries.delete(sessionKey);
  }

  /** A turn stored these messages, having started from `base`: they join the entry when the release confirms it. */
  stage(turnId: string, sessionKey: string, base: string, messages: HistoryMessage[]): void {
    this.#staged.set(turnId, { sessionKey, base, messages });
  }

  /**
   * The turn released its session: the history went from `previous` to `next`. The staged messages are appended when
   * the entry and the turn both stood at `previous` (nobody else wrote meanwhile); otherwise the entry is stale.
   */
  settle(turnId: string, sessionKey: string, previous: string, next: string): void {
    const staged = this.#staged.get(turnId);
    this.#staged.delete(turnId);
    const entry = this.#entries.peek(sessionKey);
    if (!entry) return;
    if (!staged || entry.version !== previous || staged.base !== previous || previous === next) {
      this.forget(sessionKey);
      return;
    }
    this.put(sessionKey, { sessionId: entry.sessionId, summary: entry.summary, history: [...entry.history, ...staged.messages], version: next });
  }

  /** A turn ended without a release of its own (taken over, lost): what it staged is dropped. */
  unstage(turnId: string): void {
    this.#staged.delete(turnId);
  }
}

/** UTF-16 text plus a rough per-message and per-part overhead: close enough to bound the cache. */
function bytesOf(message: HistoryMessage): number {
  let bytes = 160;
  for (const part of message.parts) {
    bytes += 48;
    if (part.type === 'text') bytes += part.text.length * 2;
    else if (part.type === 'tool-result') bytes += part.content.length * 2;
    else if (part.type === 'tool-call') bytes += part.arguments.length * 2;
  }
  return bytes;
}
