import type { ChatMessage } from '../core/chat-message.js';
import type { TurnRecord } from '../store/turn-record.js';

export type { EnsureSessionInput as SessionInfo } from '../store/index.js';
import type { EnsureSessionInput as SessionInfo } from '../store/index.js';

/** A session as a turn starts from it. */
export interface OpenedSession {
  /**
   * The session row's id: known at once for a stored session; for a new one, once its row is written. The turn runs
   * meanwhile and waits for it only to record itself: the insert is a commit of its own, which under load waits
   * for the WAL flush behind other commits (10–100 ms at 128 msg/s), and needs not hold up the model call.
   */
  id: Promise<string>;
  summary: string | undefined;
  /** Since `/new`, after the latest summary, oldest first; a message left out of context is a note. Never mutated. */
  history: ReadonlyArray<ChatMessage & { createdAt?: Date }>;
  /** The conversation (count of `/new`) the history is of: the turn's, or the stored session's when it had none. */
  conversation: number;
  /** `/model`'s choice for the session (`provider:model`); undefined: the agent's own model. */
  model?: string | undefined;
  /** `/model`'s choice for the session's whole chat (an agent with `modelChoice: chat`); undefined: none. */
  chatModel?: string | undefined;
}

/** The store as a turn sees it. */
export interface TurnStore {
  runExists(runId: string): Promise<boolean>;
  /**
   * The session's id, summary and history; created when new. `version` is the session's history version the queue
   * reported when the turn was claimed: a history this process holds at that version is not read again.
   * `conversation`: the turn's (see TurnRequest.conversation); undefined: the stored session's.
   */
  openSession(session: SessionInfo, version: string | undefined, conversation?: number): Promise<OpenedSession>;
  /** The summary and history as stored now (after a summary written mid-turn), read again. */
  reloadContext(session: SessionInfo, conversation?: number): Promise<Omit<OpenedSession, 'id'>>;
  /** `historyVersion`: the version the turn opened the session at (its stored messages join the cached history). */
  flushTurn(record: TurnRecord, options?: { historyVersion?: string | undefined }): Promise<{ written: boolean }>;
  /** The worker is about to release the turn's session, whose history version becomes `next` (see SessionCache.releasing). */
  releasing?(release: { turnId: string; sessionKey: string; next: string | undefined }): void;
  /** The release came back: the session's history version is `version` now (undefined: the release was lost). */
  released?(release: { turnId: string; sessionKey: string; next: string | undefined; version: string | undefined }): void;
}
