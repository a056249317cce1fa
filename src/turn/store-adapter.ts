import { withOmittedAsNotes } from '../agent/history/index.js';
import { createOrFindSessionId, findRun, TurnFlushes, type StoreDatabase, type TurnMessage } from '../store/index.js';
import { loadSessionSnapshot, type SessionSnapshot } from '../store/session-snapshot.js';
import { NamesWritten } from './names-written.js';
import { SessionCache, type HistoryMessage } from './session-cache.js';
import type { OpenedSession, TurnStore } from './turn-dependencies.js';

/** Messages loaded per turn at most; the history pipeline keeps the last HISTORY_TURNS user turns of them. */
export const HISTORY_LOAD_LIMIT = 500;
/** SESSION_CACHE_MB's default: the histories of the sessions this process answered lately. */
export const SESSION_CACHE_DEFAULT_BYTES = 32 * 1024 * 1024;

/**
 * The store as a turn needs it. A returning session reads nothing when this process holds its history at the
 * version the queue reports; otherwise one read (a new session: that read, then its insert, which the turn does not
 * wait for until it records itself: see OpenedSession.id). Flushes that finish
 * together share a statement (TurnFlushes). The senders' names are left out of a flush when this process wrote the
 * same ones lately.
 */
export function createTurnStore(db: StoreDatabase, options: { names?: NamesWritten; cache?: SessionCache; flushes?: TurnFlushes } = {}): TurnStore {
  const names = options.names ?? new NamesWritten();
  const flushes = options.flushes ?? new TurnFlushes(db);
  const cache = options.cache ?? new SessionCache(SESSION_CACHE_DEFAULT_BYTES, HISTORY_LOAD_LIMIT);

  return {
    runExists: async (runId) => (await findRun(db, runId)) !== undefined,
    openSession: async (session, version, conversation) => {
      const cached = cache.get(session.key, version, conversation);
      if (cached) {
        const { sessionId, summary, history, model, chatModel } = cached;
        return { id: Promise.resolve(sessionId), summary, history, conversation: cached.conversation, model, chatModel };
      }
      const { session: snapshot, chatModel } = await loadSessionSnapshot(db, session.key, HISTORY_LOAD_LIMIT, conversation);
      // No row yet: its insert runs while the turn goes on (see OpenedSession.id). Another process inserting it first
      // (a group's turns may run at once) had stored nothing of its history then, so only its id is taken.
      const opened = snapshot ? openedFrom(snapshot, chatModel) : { id: createOrFindSessionId(db, session), summary: undefined, history: [], conversation: conversation ?? 0, chatModel };
      // The entry waits for the id; the turn records itself (and so stages its messages) only after that. The handler
      // also keeps a failed insert from going unhandled when the turn ends before it looks (a lost lease).
      void opened.id.then(
        (sessionId) =>
          cache.put(session.key, { sessionId, summary: opened.summary, history: opened.history, version: version ?? '', conversation: opened.conversation, model: opened.model, chatModel }),
        () => {},
      );
      return opened;
    },
    reloadContext: async (session, conversation) => {
      cache.forget(session.key);
      const { session: snapshot } = await loadSessionSnapshot(db, session.key, HISTORY_LOAD_LIMIT, conversation);
      if (!snapshot) return { summary: undefined, history: [], conversation: conversation ?? 0 };
      const { summary, history } = openedFrom(snapshot);
      return { summary, history, conversation: snapshot.conversation };
    },
    flushTurn: async (record, flush = {}) => {
      const people = names.changed(record.people ?? []);
      const result = await flushes.flush({ ...record, people });
      if (result.written) {
        names.remember(people);
        if (flush.historyVersion !== undefined) cache.stage(record.runId, record.sessionKey, flush.historyVersion, historyOf(record.messages));
      }
      return result;
    },
    releasing: (release) => cache.releasing(release.turnId, release.sessionKey, release.next),
    released: (release) => cache.released(release.sessionKey, release.next, release.version),
  };
}

function openedFrom(snapshot: SessionSnapshot, chatModel?: string): OpenedSession {
  // a turn refused as too long stays stored but is never replayed: it would fail every later turn the same way
  const history = withOmittedAsNotes(snapshot.history).map(({ role, parts, createdAt }) => ({ role, parts, createdAt }));
  return { id: Promise.resolve(snapshot.sessionId), summary: snapshot.summary, history, conversation: snapshot.conversation, model: snapshot.model, chatModel };
}

/** A turn's stored messages as a later read gives them back (a message left out of context as its note). */
function historyOf(messages: TurnMessage[]): HistoryMessage[] {
  return withOmittedAsNotes(messages).map(({ role, parts, createdAt }) => ({ role, parts, createdAt }));
}
