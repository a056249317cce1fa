import { createHash } from 'node:crypto';
import type { RecentRun } from '../store/index.js';
import type { InboundMessage } from '../core/inbound-message.js';
import { isRetrying, sessionDelay, type DeadLetter, type HeldTurn, type PendingEntry, type QueuedSession, type QueueSnapshot } from '../redis/index.js';

/** The tabs of the `turns` entry (bull-board's job states). */
export type TurnJobState = 'active' | 'waiting' | 'delayed' | 'failed' | 'paused' | 'completed';

/** One row of the `turns` entry: a running or parked turn, a pending entry (a message, a turn put back), a dead letter. */
export interface TurnJob {
  id: string;
  state: TurnJobState;
  name: string;
  /** When its first message arrived (ms). */
  timestamp: number;
  processedOn?: number;
  processedBy?: string;
  /** Completed: when the turn was stored as finished. */
  finishedOn?: number;
  /** Delayed: ms until it may run. */
  delay?: number;
  attemptsMade: number;
  failedReason: string;
  stacktrace: string[];
  data: Record<string, unknown>;
  /** A dead letter's id (retry and discard act on it). */
  deadLetterId?: string;
  /** The session's key (a parked turn's approvals are read by it). */
  sessionKey: string;
  turnId?: string;
}

export interface TurnJobOptions {
  showText: boolean;
  leaseMs: number;
  /** A session's slot limit (1 for a DM, GROUP_MAX_CONCURRENT for a group). */
  limitFor(sessionKey: string): number;
  /** Turns are paused: what waits shows in the paused tab. */
  paused: boolean;
}

/** `host-pid-xxxxxxxx` (the worker id) → `host/pid`. */
export function workerLabel(workerId: string): string {
  const match = /^(.*)-(\d+)-[0-9a-f]{8}$/.exec(workerId);
  return match ? `${match[1]}/${match[2]}` : workerId;
}

/** The session as an operator knows it: a group's title or a DM user's name, the channel and the chat id. */
export function sessionLabel(messages: InboundMessage[], sessionKey: string): string {
  const latest = messages.at(-1);
  if (!latest) return sessionKey;
  const { conversation, sender } = latest;
  const who = conversation.chatType === 'group' ? (latest.chatTitle ?? `Group ${conversation.chatId}`) : (sender.name ?? (sender.username ? `@${sender.username}` : `Direct messages ${conversation.chatId}`));
  return `${who} · ${conversation.channel} ${conversation.chatId}${conversation.threadId ? ` thread ${conversation.threadId}` : ''}`;
}

/** A message as the board shows it: ids, length and kinds; its text only when ADMIN_SHOW_MESSAGE_TEXT is on. */
function messageView(message: InboundMessage, showText: boolean) {
  return {
    id: message.dedupeKey,
    sender: message.sender.id,
    sentAt: new Date(message.sentAt).toISOString(),
    length: message.text.length,
    kinds: [...(message.text ? ['text'] : []), ...(message.attachments ?? []).map((attachment) => attachment.kind)],
    ...(message.scheduled ? { scheduled: message.scheduled.taskId } : {}),
    ...(showText ? { text: message.text } : {}),
  };
}

function sessionData(sessionKey: string, messages: InboundMessage[]) {
  const latest = messages.at(-1);
  return {
    session: sessionKey,
    name: sessionLabel(messages, sessionKey),
    channel: latest?.conversation.channel ?? null,
    chatId: latest?.conversation.chatId ?? null,
  };
}

const oldest = (messages: InboundMessage[], fallback: number) => messages.reduce((min, message) => Math.min(min, message.sentAt || min), fallback);

const shortId = (text: string) => createHash('sha1').update(text).digest('base64url').slice(0, 16);

/** A running or parked turn: the `active` tab. */
function heldJob(session: QueuedSession, turn: HeldTurn, now: number, options: TurnJobOptions): TurnJob {
  const leaseStart = turn.parked ? undefined : turn.expiresAt - options.leaseMs;
  const retrying = isRetrying(turn);
  return {
    id: `turn-${turn.turnId}`,
    state: 'active',
    name: `${turn.parked ? 'Parked on an approval' : 'Running'}${retrying ? ` (attempt ${turn.attempt}${turn.round ? `, round ${turn.round + 1}` : ''})` : ''}: ${sessionLabel(turn.messages, session.sessionKey)}`,
    timestamp: oldest(turn.messages, now),
    // no processedOn: the queue keeps when the lease was last renewed, not when the turn began
    ...(turn.worker ? { processedBy: workerLabel(turn.worker) } : {}),
    attemptsMade: turn.attempt - 1,
    failedReason: '',
    stacktrace: [],
    sessionKey: session.sessionKey,
    turnId: turn.turnId,
    data: {
      ...sessionData(session.sessionKey, turn.messages),
      turn: turn.turnId,
      worker: turn.worker ? workerLabel(turn.worker) : null,
      parked: turn.parked,
      ...(turn.parked ? { approvalDeadline: new Date(turn.expiresAt).toISOString() } : { leaseAgeMs: Math.max(0, now - (leaseStart ?? now)), leaseExpiresInMs: turn.expiresAt - now }),
      attempt: turn.attempt,
      round: turn.round + 1,
      stopping: turn.aborted,
      messageCount: turn.messages.length,
      oldestAgeMs: now - oldest(turn.messages, now),
      messages: turn.messages.map((message) => messageView(message, options.showText)),
    },
  };
}

/** A pending entry: `waiting` (or `paused`), or `delayed` with when and why. */
function pendingJob(session: QueuedSession, entry: PendingEntry, position: number, now: number, options: TurnJobOptions): TurnJob {
  const delay = sessionDelay(session, now, options.limitFor(session.sessionKey));
  const state: TurnJobState = delay ? 'delayed' : options.paused ? 'paused' : 'waiting';
  const messages = entry.messages;
  const arrived = entry.kind === 'message' ? entry.at : oldest(messages, now);
  const retrying = entry.kind === 'turn' && isRetrying(entry);
  const what =
    entry.kind === 'turn' ? (retrying ? `Retrying (attempt ${entry.attempt}${entry.round ? `, round ${entry.round + 1}` : ''})` : 'Turn put back') : `Message ${position + 1} of ${session.pending}`;
  const behind = session.running > 0 ? `, behind ${session.running} running turn${session.running === 1 ? '' : 's'}` : '';
  return {
    id: entry.kind === 'turn' ? `turn-${entry.id}` : `message-${shortId(`${session.sessionKey}\n${entry.id}`)}`,
    state,
    name: `${what}: ${sessionLabel(messages, session.sessionKey)}`,
    timestamp: arrived,
    ...(delay ? { delay: Math.max(0, delay.until - now) } : {}),
    attemptsMade: entry.attempt - 1,
    failedReason: '',
    stacktrace: [],
    sessionKey: session.sessionKey,
    ...(entry.kind === 'turn' ? { turnId: entry.id } : {}),
    data: {
      ...sessionData(session.sessionKey, messages),
      position: position + 1,
      waitingInSession: session.pending,
      runningInSession: session.running,
      why: delay ? delay.why : `waiting for a slot or a worker${behind}`,
      ...(delay ? { runsAt: new Date(delay.until).toISOString() } : {}),
      ...(entry.kind === 'turn' ? { turn: entry.id, attempt: entry.attempt, round: entry.round + 1 } : {}),
      messageCount: messages.length,
      oldestAgeMs: now - arrived,
      messages: messages.map((message) => messageView(message, options.showText)),
    },
  };
}

/** Every job of the snapshot but the dead letters, in the order they will run (active first). */
export function snapshotJobs(snapshot: QueueSnapshot, options: TurnJobOptions): TurnJob[] {
  const active: TurnJob[] = [];
  const pending: TurnJob[] = [];
  for (const session of snapshot.sessions) {
    for (const turn of session.turns) active.push(heldJob(session, turn, snapshot.now, options));
    session.entries.forEach((entry, position) => pending.push(pendingJob(session, entry, position, snapshot.now, options)));
  }
  return [...active, ...pending];
}

/** A dead letter: the `failed` tab, its error and every attempt's reason. */
export function deadLetterJob(letter: DeadLetter, options: Pick<TurnJobOptions, 'showText'>): TurnJob {
  const reasons = letter.attempts.map((attempt) => `${new Date(attempt.at).toISOString()} round ${attempt.round + 1}, attempt ${attempt.attempt}: ${attempt.reason}`);
  return {
    id: `dead-${letter.id}`,
    state: 'failed',
    name: `Failed after every retry: ${sessionLabel(letter.messages, letter.sessionKey)}`,
    timestamp: oldest(letter.messages, letter.failedAt),
    processedOn: letter.attempts[0]?.at ?? letter.failedAt,
    attemptsMade: letter.attempts.length,
    failedReason: letter.error,
    stacktrace: reasons,
    deadLetterId: letter.id,
    sessionKey: letter.sessionKey,
    data: {
      ...sessionData(letter.sessionKey, letter.messages),
      failedAt: new Date(letter.failedAt).toISOString(),
      error: letter.error,
      attempts: reasons,
      messageCount: letter.messages.length,
      messages: letter.messages.map((message) => messageView(message, options.showText)),
    },
  };
}

/** A stored turn of the last day (the completed tab): what its run recorded, never message text. */
export function completedJob(run: RecentRun): TurnJob {
  const where = `${run.channel} ${run.chatId}`;
  return {
    id: `run-${run.runId}`,
    state: 'completed',
    name: `${run.status === 'completed' ? 'Answered' : `Ended (${run.status})`}: ${run.title ? `${run.title} · ${where}` : where}`,
    timestamp: run.startedAt.getTime(),
    processedOn: run.startedAt.getTime(),
    finishedOn: run.finishedAt.getTime(),
    attemptsMade: 1,
    failedReason: run.error ?? '',
    stacktrace: [],
    sessionKey: run.sessionKey,
    turnId: run.runId,
    data: {
      sessionKey: run.sessionKey,
      channel: run.channel,
      chatId: run.chatId,
      runId: run.runId,
      status: run.status,
      model: run.model,
      durationMs: run.durationMs,
      inputTokens: run.inputTokens,
      outputTokens: run.outputTokens,
      costUsd: run.costUsd,
      ...(run.error ? { error: run.error } : {}),
    },
  };
}
