import type { TurnOutcome, TurnRequest } from '../core/turn-contract.js';
import { BotError, errorMessage } from '../core/errors.js';
import { contextKeyOf } from '../core/session-key.js';
import { isPermanentStoreError } from '../store/store-errors.js';
import type { TurnRecord } from '../store/turn-record.js';
import type { PendingDelivery } from './delivery-records.js';
import { flushWithRetry } from './flush-with-retry.js';
import type { SettlingLiveReply } from './live-draft.js';
import type { TurnDependencies } from './turn-dependencies.js';

export const UNSTORABLE_MESSAGE = '[this message could not be stored]';

export function newDelivery(record: TurnRecord, reply: string, plain: boolean, consumedContext: number): PendingDelivery {
  return { record, reply, plain, consumedContext, delivered: false, deliveredIds: [] };
}

/** Deliver (once, resuming after the chunks already out), remember the delivery, then write the whole turn. */
export async function finishTurn(deps: TurnDependencies, request: TurnRequest, pending: PendingDelivery, live?: SettlingLiveReply): Promise<TurnOutcome> {
  const { turnId, sessionKey } = request;
  const { record, reply } = pending;
  const conversation = request.messages.at(-1)!.conversation;
  if (reply && !pending.delivered) {
    await deps.deliveries.save(turnId, pending);
    if (!(await request.holdsLease())) return { kind: 'skipped' };
    const channel = deps.channels.for(conversation);
    const progress = {
      delivered: pending.deliveredIds,
      onDelivered: (messageIds: string[]) => deps.deliveries.save(turnId, { ...pending, deliveredIds: messageIds }),
    };
    try {
      const receipt = pending.plain
        ? await channel.sendNotice(conversation, reply)
        : live?.started
          ? await live.finish(reply, progress)
          : await channel.send(conversation, reply, progress);
      record.run.deliveredMessageIds = receipt.messageIds;
    } catch (error) {
      // Not retryable: the platform refused for good (blocked, chat gone) or may already have posted (5xx).
      const retryable = error instanceof BotError ? error.isRetryable : false;
      if (retryable && !request.finalAttempt) return { kind: 'retry', error };
      deps.logger.warn({ err: error, runId: turnId, sessionKey }, 'reply could not be delivered; storing the turn as failed');
      const saved = await deps.deliveries.get(turnId);
      record.run = { ...record.run, status: 'failed', error: `delivery failed: ${errorMessage(error)}`, deliveredMessageIds: saved?.deliveredIds ?? [] };
    }
    // sends reported every part through `progress`; a notice has no progress, so it is marked delivered here
    if (pending.plain && record.run.status !== 'failed') await deps.deliveries.save(turnId, { ...pending, delivered: true, deliveredIds: record.run.deliveredMessageIds });
  }
  const stored = await storeTurn(deps, record, request.signal);
  await Promise.all([deps.deliveries.clear(turnId), deps.checkpoints.clear(sessionKey, turnId)]);
  // caused by this turn: charged to its message's budgets, its calls added to its run
  if (pending.summarizeDue) deps.compactor?.compactInBackground(sessionKey, { runId: turnId, message: request.messages.at(-1)! });
  if (pending.consumedContext > 0) await deps.groupContext.consume(contextKeyOf(request.messages[0]!), pending.consumedContext);
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
async function storeTurn(deps: TurnDependencies, record: TurnRecord, signal: AbortSignal): Promise<TurnRecord> {
  try {
    await flushWithRetry(deps.store, record, deps.logger, deps.flushRetry, signal);
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
