import type { TurnAbandoner } from '../core/turn-contract.js';
import type { TurnRecord } from '../store/turn-record.js';
import { namesOf, sessionInfoOf } from './session-info.js';
import { abandonedNotice } from './failing-notice.js';
import type { TurnDependencies } from './turn-dependencies.js';

/**
 * Ends a turn that failed every round of attempts (see TURN_RETRY): the user hears that this message will
 * not be answered (an operator may still retry its dead letter from the queue view), and the run is stored as failed when the database lets us. Best effort throughout: the
 * turn is released either way.
 */
export function createTurnAbandoner(deps: TurnDependencies): TurnAbandoner {
  return async ({ turnId, sessionKey, holder, messages, error, triedForMs, conversation }) => {
    const latest = messages.at(-1);
    if (!latest) return;
    const now = new Date();
    await deps.deliveries
      .resume({ sessionKey, turnId, holder }, 'abandoned', latest.conversation.channel)
      .then((progress) => deps.channels.for(latest.conversation).sendNotice(latest.conversation, abandonedNotice(triedForMs), progress))
      .catch((failure: unknown) => deps.logger.warn({ err: failure, runId: turnId, sessionKey }, 'could not send the apology of an abandoned turn'));
    try {
      const session = await deps.store.openSession(sessionInfoOf(sessionKey, latest), undefined, conversation);
      const record: TurnRecord = {
        runId: turnId,
        sessionKey,
        sessionId: await session.id,
        messages: messages.map((message) => ({ role: 'user', parts: [{ type: 'text', text: message.text }], inboundKey: message.dedupeKey, createdAt: now })),
        run: {
          status: 'failed',
          silent: false,
          provider: deps.model.provider,
          model: deps.model.model,
          iterations: 0,
          inputTokens: 0,
          outputTokens: 0,
          costUsd: 0,
          error: `abandoned after every retry: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500),
          startedAt: now,
          finishedAt: now,
          deliveredMessageIds: [],
        },
        spans: [],
        ...namesOf(messages),
        conversation: session.conversation,
      };
      await deps.store.flushTurn(record);
      await deps.afterTurn?.({ messages, record, outcome: { kind: 'failed' } });
    } catch (failure) {
      deps.logger.warn({ err: failure, runId: turnId, sessionKey }, 'could not store the abandoned turn');
    }
  };
}
