import { withOmittedAsNotes } from '../agent/history/index.js';
import { ensureSession, findRun, flushTurn, latestSummary, loadHistory, type StoreDatabase } from '../store/index.js';
import { NamesWritten } from './names-written.js';
import type { SessionInfo, TurnStore } from './turn-dependencies.js';

const SESSION_CACHE_LIMIT = 10_000;
/** Messages loaded per turn at most; the history pipeline keeps the last HISTORY_TURNS user turns of them. */
const HISTORY_LOAD_LIMIT = 500;

/**
 * The store as a turn needs it, with session ids cached (a session row never changes id) and the senders'
 * names left out of a flush when this process wrote the same ones lately.
 */
export function createTurnStore(db: StoreDatabase, names = new NamesWritten()): TurnStore {
  const sessionIds = new Map<string, string>();
  return {
    runExists: async (runId) => (await findRun(db, runId)) !== undefined,
    ensureSession: async (session: SessionInfo) => {
      const cached = sessionIds.get(session.key);
      if (cached) return { id: cached };
      const row = await ensureSession(db, session);
      if (sessionIds.size >= SESSION_CACHE_LIMIT) sessionIds.delete(sessionIds.keys().next().value!);
      sessionIds.set(session.key, row.id);
      return { id: row.id };
    },
    loadContext: async (sessionId) => {
      const summary = await latestSummary(db, sessionId);
      const history = await loadHistory(db, sessionId, {
        ...(summary ? { fromSeq: summary.coversUpToSeq + 1 } : {}),
        limit: HISTORY_LOAD_LIMIT,
      });
      // a turn refused as too long stays stored but is never replayed: it would fail every later turn the same way
      return { summary: summary?.summary, history: withOmittedAsNotes(history).map(({ role, parts, createdAt }) => ({ role, parts, createdAt })) };
    },
    flushTurn: async (record) => {
      const people = names.changed(record.people ?? []);
      const result = await flushTurn(db, { ...record, people });
      if (result.written) names.remember(people);
      return result;
    },
  };
}
