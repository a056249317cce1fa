import type { SessionQueue } from '../redis/session-queue.js';
import type { AbortBus } from './abort-bus.js';

/**
 * /stop: aborts the session's running turns wherever they run and drops what waits. Sent at chat level
 * (not inside a thread), it also stops the chat's thread and topic sessions — where the bot's answers run.
 */
export async function stopSessions(
  deps: {
    sessions: SessionQueue;
    abortBus: AbortBus;
    /** Ends a turn that waits for an approval (no worker runs it to see an abort). */
    stopWaitingTurn?: (sessionKey: string, turnId: string) => Promise<void>;
  },
  sessionKey: string,
): Promise<{ abortedTurns: number; droppedMessages: number }> {
  const keys = [sessionKey, ...(await deps.sessions.threadSessionsOf(sessionKey))];
  let abortedTurns = 0;
  let droppedMessages = 0;
  for (const key of keys) {
    const stopped = await deps.sessions.stop(key);
    await deps.abortBus.publish(key, stopped.abortedTurnIds);
    for (const turnId of stopped.waitingTurnIds) await deps.stopWaitingTurn?.(key, turnId);
    abortedTurns += stopped.abortedTurnIds.length + stopped.waitingTurnIds.length;
    droppedMessages += stopped.droppedMessages;
  }
  return { abortedTurns, droppedMessages };
}
