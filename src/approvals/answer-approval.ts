import type { ApprovalAnswer, ApprovalAnswerResult, ApprovalChoice, ApprovalSink } from '../core/approval.js';
import type { ChannelRegistry } from '../core/channel-registry.js';
import type { ConversationRef } from '../core/inbound-message.js';
import type { Logger } from '../observability/logger.js';
import type { ApprovalRecord, ApprovalRecords, ApprovalStatus } from './approval-records.js';
import type { SessionQueue } from '../redis/session-queue.js';
import { promptOf } from './approval-gate.js';
import { decisionText, OPERATOR_PREFIX } from './approval-text.js';

export interface ApprovalAnswerDependencies {
  records: ApprovalRecords;
  sessions: SessionQueue;
  channels: ChannelRegistry;
  clock?: () => number;
  logger: Logger;
}

const STATUS_OF: Record<ApprovalChoice, Exclude<ApprovalStatus, 'pending'>> = { once: 'allowed-once', session: 'allowed-session', deny: 'denied' };

const refused = (text: string): ApprovalAnswerResult => ({ kind: 'refused', text });

/**
 * A click on Allow once / Allow for this session / Deny, from any gateway process: only the user who started
 * the turn, only once, only before the deadline. The decision is stored, shown on the prompt, and the parked
 * turn is handed back to a worker.
 */
export function createApprovalAnswerHandler(deps: ApprovalAnswerDependencies): ApprovalSink {
  const clock = deps.clock ?? Date.now;
  return async (answer: ApprovalAnswer) => {
    const record = await deps.records.get(answer.approvalId);
    if (!record) return refused('This request is no longer open.');
    if (answer.userId !== record.requesterId) return refused('Only the person who asked can answer this request.');
    if (record.status !== 'pending') return refused('This request was already answered.');
    if (clock() >= record.deadlineMs) return refused('This request has expired.');
    const status = STATUS_OF[answer.choice];
    const text = decisionText(status, answer.userName);
    const decided = await deps.records.decide(record.id, status, answer.userId, text, clock());
    if (decided.kind !== 'ok') return refused('This request was already answered.');
    if (answer.choice === 'session') await deps.records.allowForSession(record.sessionKey, record.toolName);
    await afterDecision(deps, record, decided.promptMessageId, status, text);
    return { kind: 'accepted', text };
  };
}

export type OperatorDenial = { kind: 'denied'; record: ApprovalRecord } | { kind: 'settled'; status: ApprovalStatus } | { kind: 'missing' };

/**
 * Deny from the operator console: the same path as the requester's Deny button (the prompt shows the
 * decision, the parked turn resumes with the denial), for any pending request, before or after its deadline.
 */
export async function denyAsOperator(deps: ApprovalAnswerDependencies, approvalId: string, operator: string): Promise<OperatorDenial> {
  const record = await deps.records.get(approvalId);
  if (!record) return { kind: 'missing' };
  const text = decisionText('denied', 'an operator');
  const decided = await deps.records.decide(record.id, 'denied', `${OPERATOR_PREFIX}${operator}`, text, (deps.clock ?? Date.now)());
  if (decided.kind !== 'ok') return decided;
  await afterDecision(deps, record, decided.promptMessageId, 'denied', text);
  return { kind: 'denied', record };
}

async function afterDecision(deps: ApprovalAnswerDependencies, record: ApprovalRecord, promptMessageId: string | undefined, status: ApprovalStatus, text: string): Promise<void> {
  await settlePrompt(deps, record, promptMessageId, text);
  await resumeTurn(deps, record);
  deps.logger.info({ approvalId: record.id, runId: record.turnId, sessionKey: record.sessionKey, status }, 'approval answered');
}

/** /stop while a turn waits: its open requests are settled as stopped and the turn resumes only to end. */
export async function stopWaitingTurn(deps: ApprovalAnswerDependencies, sessionKey: string, turnId: string): Promise<void> {
  await stopRequestsOfTurn(deps, sessionKey, turnId);
  await resumeTurn(deps, { sessionKey, turnId });
}

/** The turn's open requests settled as stopped, each prompt saying so ("Stopped."). */
export async function stopRequestsOfTurn(deps: Pick<ApprovalAnswerDependencies, 'records' | 'channels' | 'logger'>, sessionKey: string, turnId: string): Promise<void> {
  for (const record of await deps.records.ofTurn(sessionKey, turnId)) {
    const text = decisionText('stopped');
    const decided = await deps.records.decide(record.id, 'stopped', 'stop', text);
    if (decided.kind === 'ok') await settlePrompt(deps, record, decided.promptMessageId, text);
  }
}

/** A prompt not posted yet when the decision was stored is settled by the turn that posts it (approval-gate.ts). */
async function settlePrompt(deps: Pick<ApprovalAnswerDependencies, 'channels' | 'logger'>, record: ApprovalRecord, promptMessageId: string | undefined, text: string): Promise<void> {
  if (!promptMessageId) return;
  const conversation = JSON.parse(record.conversation) as ConversationRef;
  await deps.channels
    .for(conversation)
    .settleApprovalPrompt?.(conversation, promptMessageId, promptOf(record), text)
    .catch((error: unknown) => deps.logger.warn({ err: error, approvalId: record.id }, 'could not show the decision on the approval request'));
}

async function resumeTurn(deps: ApprovalAnswerDependencies, turn: { sessionKey: string; turnId: string }): Promise<void> {
  // unparked: its lease ends now and the session is due; not parked yet: the early answer waits for PARK
  await deps.sessions.unpark(turn.sessionKey, turn.turnId);
}
