import type { TraceSpan } from '../core/trace-span.js';
import type { StoredAttachment } from '../core/attachment.js';
import type { MessagePart, MessageRole } from '../core/chat-message.js';
import type { ChannelName } from '../core/inbound-message.js';
import type { RunStatus } from './schema/index.js';

/** Everything one turn stored at its end, written in one transaction by `flushTurn`. */
export interface TurnRecord {
  /** The scheduler's turn id: flushing the same id twice writes once. */
  runId: string;
  sessionKey: string;
  sessionId: string;
  /** In order: the user message(s) that started the turn, then what the run added. */
  messages: TurnMessage[];
  run: TurnRun;
  spans: TraceSpan[];
  /**
   * Senders whose name or username the `people` table should get (only those that changed: the turn store
   * leaves out what it wrote lately). Written with the turn, in the same statement.
   */
  people?: TurnPerson[] | undefined;
  /**
   * The session's title: the group's title as the latest message had it (kept current), or the title the first
   * exchange gave a conversation the platform titles (a Slack assistant thread). None: the stored one stays.
   */
  chatTitle?: string | undefined;
  /** The conversation (count of `/new`) the turn started in; absent: the session's current one. */
  conversation?: number | undefined;
}

/** A sender as the platform named them; an absent field leaves the stored one as it is. */
export interface TurnPerson {
  channel: ChannelName;
  userId: string;
  name?: string | undefined;
  username?: string | undefined;
}

export interface TurnMessage {
  role: MessageRole;
  parts: MessagePart[];
  /** The platform dedupe key of a user message. */
  inboundKey?: string | undefined;
  createdAt: Date;
  /** A user message's files: metadata, outcome, transcript or extracted text (never the bytes). */
  attachments?: StoredAttachment[] | undefined;
  /** Stored but left out of every later request (a turn refused as too long). */
  omittedFromContext?: boolean | undefined;
}

export interface TurnRun {
  status: RunStatus;
  silent: boolean;
  provider: string;
  model: string;
  iterations: number;
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens read from / written to the provider's cache (disjoint from `inputTokens`). */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  costUsd: number;
  error?: string | undefined;
  startedAt: Date;
  finishedAt: Date;
  deliveredMessageIds: string[];
}
