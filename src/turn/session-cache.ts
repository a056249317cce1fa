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
  /** The conversation (count of `/new`) the history is of. */
  conversation: number;
  /** `/model`'s choice when this was read (a choice moves the version on, as /new does). */
  model?: string | undefined;
  /** The chat's `/model` choice when this was read (a chat-wide choice moves every session's version of the chat on). */
  chatModel?: string | undefined;
}

interface Staged {
  sessionKey: string;
  base: string;
  messages: HistoryMessage[];
}

/**
 * The sessions this process answered lately, so a returning session's turn reads nothing from PostgreSQL: an entry
 * is used only at the version the queue reports for the session (every stored turn, /new and summary moves it on,
 * in whichever process), and a turn's own stored messages are appended as its release goes out, at the version that
 * release writes only when nobody else wrote in between. Bounded by an estimate of its bytes; the least recently
 * used session goes first.
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

  /**
   * The session at exactly this version; an unknown version ('') never matches, nor another conversation (/new moves
   * the version on too: this is the belt to its braces).
   */
  get(sessionKey: string, version: string | undefined, conversation?: number): CachedSession | undefined {
    const entry = this.#entries.peek(sessionKey);
    if (!entry || !version || entry.version !== version) return undefined;
    if (conversation !== undefined && entry.conversation !== conversation) return undefined;
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

  /** A turn stored these messages, having started from `base`: they join the entry when its release is sent. */
  stage(turnId: string, sessionKey: string, base: string, messages: HistoryMessage[]): void {
    this.#staged.delete(turnId);
    this.#staged.set(turnId, { sessionKey, base, messages });
    // a turn that never releases here (its lease lost, retried elsewhere) leaves its staging behind: the oldest go
    if (this.#staged.size > MAX_STAGED) this.#staged.delete(this.#staged.keys().next().value!);
  }

  /**
   * The turn is about to release its session, moving the history version to `next` (undefined: it wrote nothing).
   * Before the release is sent, so that a turn claimed on `next` the moment Redis has it (in another connection's
   * reply, before this release's own) finds the history here. The release writes `next` only when the session still
   * stood at the turn's base (redis/lua/release.lua), which is when the entry, at that base too, plus the turn's
   * staged messages is the history; otherwise nobody ever sees `next` and `released` forgets the entry.
   */
  releasing(turnId: string, sessionKey: string, next: string | undefined): void {
    const staged = this.#staged.get(turnId);
    this.#staged.delete(turnId);
    if (next === undefined) return;
    const entry = this.#entries.peek(sessionKey);
    if (!entry) return;
    if (!staged || staged.sessionKey !== sessionKey || entry.version !== staged.base) {
      this.forget(sessionKey);
      return;
    }
    this.put(sessionKey, { ...entry, history: [...entry.history, ...staged.messages], version: next });
  }

  /** The release came back with the session's version now (undefined: lost): an entry at a `next` it did not write goes. */
  released(sessionKey: string, next: string | undefined, version: string | undefined): void {
    if (next === undefined || version === next) return;
    if (this.#entries.peek(sessionKey)?.version === next) this.forget(sessionKey);
  }
}

/** Turns staged and not yet released, at most (each a few messages): far more than a process runs at once. */
const MAX_STAGED = 20_000;

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
