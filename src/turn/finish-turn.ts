import type { TurnOutcome, TurnRequest } from '../core/turn-contract.js';
import { BotError, errorMessage } from '../core/errors.js';
import { contextKeyOf } from '../core/session-key.js';
import { isPermanentStoreError } from '../store/store-errors.js';
import type { TurnRecord } from '../store/turn-record.js';
import type { Channel, LiveReply } from '../core/channel.js';
import type { ConversationRef } from '../core/inbound-message.js';
import { TurnAbortError } from '../core/turn-abort.js';
import type { PendingDelivery, RecordedProgress, SavedDelivery, TurnLease } from './delivery-records.js';
import { flushWithRetry } from './flush-with-retry.js';
import type { SettlingLiveReply } from './live-draft.js';
import type { TurnDependencies } from './turn-dependencies.js';
import { currentTurnTrace } from '../observability/turn-tracing.js';

export const UNSTORABLE_MESSAGE = '[this message could not be stored]';

export function newDelivery(record: TurnRecord, reply: string, plain: boolean): PendingDelivery {
  return { record, reply, plain };
}

/**
 * Deliver (once: resuming after the parts already out, settling a part an earlier holder left in doubt), then
 * write the whole turn. `saved` is what an earlier holder of a resumed turn left in the delivery record.
 */
export async function finishTurn(deps: TurnDependencies, request: TurnRequest, pending: PendingDelivery, live?: SettlingLiveReply, saved?: SavedDelivery): Promise<TurnOutcome> {
  const { turnId, sessionKey } = request;
  const { record, reply } = pending;
  const conversation = request.messages.at(-1)!.conversation;
  const lease = { sessionKey, turnId, holder: request.holder };
  const channel = deps.channels.for(conversation);
  // a preview the earlier holder showed: the answer is edited into it, or it is removed
  const orphan = live === undefined ? adoptPreview(channel, conversation, lease, saved) : undefined;
  let progress: RecordedProgress | undefined;
  if (reply) {
    progress = deps.deliveries.progress({ lease, stream: 'answer', channel: conversation.channel, state: saved?.streams.answer, deferDelivered: true, ...(saved?.pending ? {} : { pending }) });
    const preview = live?.started ? live : !pending.plain ? orphan : undefined;
    try {
      const send = () => (pending.plain ? channel.sendNotice(conversation, reply, progress!) : preview ? preview.finish(reply, progress!) : channel.send(conversation, reply, progress!));
      const traced = currentTurnTrace();
      const receipt = traced ? await traced.span('chat send', { 'chatbot.channel': conversation.channel, 'chatbot.send.kind': pending.plain ? 'notice' : preview ? 'live-reply' : 'message' }, send) : await send();
      record.run.deliveredMessageIds = receipt.messageIds;
    } catch (error) {
      // another worker holds the turn now: it delivers and stores it
      if (error instanceof TurnAbortError && error.reason === 'leaseLost') return { kind: 'skipped' };
      // Not retryable: the platform refused for good (blocked, chat gone) or may already have posted (5xx).
      const retryable = error instanceof BotError ? error.isRetryable : false;
      if (retryable && !request.finalAttempt) return { kind: 'retry', error };
      deps.logger.warn({ err: error, runId: turnId, sessionKey }, 'reply could not be delivered; storing the turn as failed');
      record.run = { ...record.run, status: 'failed', error: `delivery failed: ${errorMessage(error)}`, deliveredMessageIds: progress.recorded };
    }
  }
  if (orphan && (!reply || pending.plain)) await orphan.discard().catch(() => undefined);
  let stored: TurnRecord;
  const trace = currentTurnTrace();
  try {
    stored = trace ? await trace.span('flush', { 'chatbot.spans': record.spans.length }, () => storeTurn(deps, record, request.signal, request.historyVersion)) : await storeTurn(deps, record, request.signal, request.historyVersion);
  } catch (error) {
    // the turn is tried again: it should find every part recorded as out rather than ask the platform about the last
    await progress?.saveDeferred().catch(() => undefined);
    throw error;
  }
  // caused by this turn: charged to its message's budgets, its calls added to its run
  if (pending.summarizeDue) deps.compactor?.compactInBackground(sessionKey, { runId: turnId, message: request.messages.at(-1)! });
  if (request.messages[0]!.conversation.chatType === 'group') await deps.groupContext.release(contextKeyOf(request.messages[0]!), turnId);
  trace?.finish({ status: stored.run.status, spans: stored.spans, messages: stored.messages, reply });
  const outcome: TurnOutcome = stored.run.status === 'failed' ? { kind: 'failed' } : stored.run.status === 'cancelled' ? { kind: 'cancelled' } : { kind: stored.run.silent ? 'silent' : 'completed' };
  await deps.afterTurn?.({ messages: request.messages, record: stored, outcome }).catch((error: unknown) =>
    deps.logger.warn({ err: error, runId: turnId, sessionKey }, 'after-turn hook failed'),
  );
  return outcome;
}

/**
 * Writes the turn; when the database refuses it for good (data it cannot hold), the turn is stored as failed
 * with placeholders for its messages instead, so a poison message ends instead of being retried forever.
 */
async function storeTurn(deps: TurnDependencies, record: TurnRecord, signal: AbortSignal, historyVersion: string | undefined): Promise<TurnRecord> {
  try {
    await flushWithRetry(deps.store, record, deps.logger, deps.flushRetry, signal, historyVersion);
    return record;
  } catch (error) {
    if (!isPermanentStoreError(error)) throw error;
    deps.logger.error(
      { err: error, runId: record.runId, sessionKey: record.sessionKey, messages: record.messages.length, spans: record.spans.length },
      'the database refused the turn for good; storing it as failed without its content',
    );
    const placeholder = unstorable(record, error);
    await flushWithRetry(deps.store, placeholder, deps.logger, deps.flushRetry, signal);
    return placeholder;
  }
}

function unstorable(record: TurnRecord, error: unknown): TurnRecord {
  const users = record.messages.filter((message) => message.role === 'user');
  return {
    ...record,
    messages: users.map((message) => ({ role: 'user', parts: [{ type: 'text', text: UNSTORABLE_MESSAGE }], inboundKey: message.inboundKey, createdAt: new Date() })),
    run: { ...record.run, status: 'failed', error: `not storable: ${errorMessage(error).slice(0, 200)}`, startedAt: new Date(), finishedAt: new Date() },
    spans: [],
  };
}

/** The live reply of a preview an earlier holder recorded (undefined when there is none). */
function adoptPreview(channel: Channel, to: ConversationRef, lease: TurnLease, saved: SavedDelivery | undefined): LiveReply | undefined {
  const previewId = saved?.streams.live?.sent[0];
  if (previewId === undefined) return undefined;
  return channel.openLiveReply?.(to, { adopt: previewId, key: `${lease.turnId}.live` });
}
