import type { ApprovalDecision, ApprovalGate, ApprovalVerdict } from '../core/approval.js';
import { needsApproval } from '../agent/tools/tool-registry.js';
import type { ApprovalPrompt } from '../core/approval.js';
import type { DeliveryProgress } from '../core/delivery-progress.js';
import type { ChannelRegistry } from '../core/channel-registry.js';
import type { InboundMessage } from '../core/inbound-message.js';
import type { Logger } from '../observability/logger.js';
import { approvalIdOf, type ApprovalRecord, type ApprovalRecords } from './approval-records.js';
import { argumentsPreview, decisionText, OPERATOR_PREFIX } from './approval-text.js';

export interface ApprovalGateOptions {
  records: ApprovalRecords;
  channels: ChannelRegistry;
  sessionKey: string;
  turnId: string;
  /** The message whose sender may answer, in whose chat the request is posted. */
  latest: InboundMessage;
  /** The agent's `toolPolicy.requireApproval` patterns. */
  patterns: readonly string[];
  timeoutMs: number;
  clock: () => number;
  logger: Logger;
  /** The request's delivery progress in the turn's delivery record, so that a takeover never posts it twice. */
  promptProgress(approvalId: string): Promise<DeliveryProgress>;
}

/** The prompt a record stands for (also what the gateway re-renders when it settles the request). */
export function promptOf(record: Pick<ApprovalRecord, 'id' | 'toolName' | 'argumentsPreview'>): ApprovalPrompt {
  return { approvalId: record.id, toolName: record.toolName, argumentsPreview: record.argumentsPreview };
}

/**
 * The turn's side of approval in chat: a call that needs approval is asked about once (the request lives in
 * Redis under an id derived from the turn and the call, so a resumed turn finds it), and the verdict follows
 * the request's status. Unanswered past the deadline, the call is denied and the prompt says so. For chat turns:
 * a scheduled task's run has the unattended gate (unattended-gate.ts).
 */
export function createApprovalGate(options: ApprovalGateOptions): ApprovalGate {
  const { records, sessionKey, turnId, latest, clock, logger } = options;
  const channel = options.channels.for(latest.conversation);

  const decisionOf = (record: ApprovalRecord): ApprovalDecision => ({
    askedAt: record.createdAtMs,
    decidedAt: record.decidedAtMs ?? clock(),
    summary: record.status === 'timed-out' ? 'timed-out' : `${record.status} by ${record.decidedBy ?? 'unknown'}`,
  });
  const verdictOf = (record: ApprovalRecord): ApprovalVerdict => {
    switch (record.status) {
      case 'allowed-once':
      case 'allowed-session':
        return { kind: 'allow', decision: decisionOf(record) };
      case 'denied':
        return { kind: 'deny', reason: record.decidedBy?.startsWith(OPERATOR_PREFIX) ? 'an operator denied it' : 'the user denied it', decision: decisionOf(record) };
      case 'timed-out':
        return { kind: 'deny', reason: 'nobody answered the approval request in time', decision: decisionOf(record) };
      case 'stopped':
        return { kind: 'stop' };
      case 'pending':
        return { kind: 'wait', untilMs: record.deadlineMs };
    }
  };

  const settleTimedOut = async (record: ApprovalRecord): Promise<ApprovalVerdict> => {
    const decided = await records.decide(record.id, 'timed-out', 'timeout', decisionText('timed-out'), clock());
    if (decided.kind === 'ok' && decided.promptMessageId) {
      await channel.settleApprovalPrompt?.(latest.conversation, decided.promptMessageId, promptOf(record), decisionText('timed-out')).catch((error: unknown) =>
        logger.warn({ err: error, approvalId: record.id }, 'could not mark the approval request as timed out'),
      );
    }
    const settled = await records.get(record.id);
    return settled ? verdictOf(settled) : { kind: 'deny', reason: 'nobody answered the approval request in time' };
  };

  return {
    async check(call, tool) {
      if (!needsApproval(tool, options.patterns)) return { kind: 'allow' };
      // "Allow for this session" covers the chat's own turns until /new, never a scheduled firing's
      if (!latest.scheduled && (await records.allowedForSession(sessionKey, tool.name))) return { kind: 'allow' };
      if (!channel.sendApprovalPrompt) return { kind: 'deny', reason: 'approval buttons are not available on this platform' };
      const id = approvalIdOf(turnId, call.id);
      const now = clock();
      await records.open(
        {
          id,
          sessionKey,
          turnId,
          toolCallId: call.id,
          toolName: tool.name,
          argumentsPreview: argumentsPreview(call.arguments),
          requesterId: latest.sender.id,
          conversation: JSON.stringify(latest.conversation),
          deadlineMs: now + options.timeoutMs,
        },
        now,
      );
      const record = (await records.get(id))!;
      if (record.status !== 'pending') return verdictOf(record);
      if (now >= record.deadlineMs) return settleTimedOut(record);
      if (!record.promptMessageId) {
        const messageId = await channel.sendApprovalPrompt(latest.conversation, promptOf(record), await options.promptProgress(id));
        const stored = await records.setPromptMessage(id, messageId);
        logger.info({ runId: turnId, sessionKey, tool: tool.name, approvalId: id }, 'tool call waits for approval');
        // answered between the post and now: its decider had no prompt to settle (approval-decide.lua)
        if (stored.outcome) {
          await channel.settleApprovalPrompt?.(latest.conversation, messageId, promptOf(record), stored.outcome).catch((error: unknown) =>
            logger.warn({ err: error, approvalId: id }, 'could not show the decision on the approval request'),
          );
        }
      }
      return verdictOf(record);
    },
  };
}
