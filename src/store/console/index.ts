// Read models of the operator console (src/gateway/console): small named queries over the turn store.
export {
  escapeLike,
  findConsoleSession,
  listConsoleSessions,
  type ConsoleSession,
  type SessionsCursor,
  type SessionsFilter,
  type SessionsPage,
  type SessionsQuery,
} from './sessions-query.js';
export { transcriptPage, type TranscriptMessage, type TranscriptPage, type TranscriptQuery, type TranscriptRun, type TranscriptSpan } from './transcript-query.js';
export { findPairingRequest } from './pairings-query.js';
export { chatKey, chatNames, namesMatching, peopleNames, personKey, type ChatName, type ChatLocator, type PersonName } from './names-query.js';
export { findConsoleTask, liveTaskChats, type ConsoleTask, type ConsoleTaskChat, type TaskChatsPage } from './schedules-query.js';
export { runsOverview, type RecentFailure, type RunCounts, type RunsOverview } from './overview-query.js';
export { recentRunCount, recentRuns, RECENT_RUNS_WINDOW_MS, type RecentRun } from './recent-runs-query.js';
export { sessionPromptSplit, type SessionPromptSplit } from './prompt-split-query.js';
