export { databaseOptionsOf, openDatabase, type Database, type DatabasePooler, type OpenDatabaseOptions, type StoreDatabase } from './database.js';
export { migrateDatabase, pendingMigrations } from './migrate.js';
export { describeConnections } from './connection-checks.js';
export { chooseSessionModel, sessionModelOf } from './session-model.js';
export { chatModelOf, chooseChatModel, sessionKeysOfChat } from './chat-model.js';
export { createOrFindSessionId, ensureSession, findSession, storedConversation, type EnsureSessionInput } from './session-repository.js';
export { loadHistory, type LoadHistoryOptions, type StoredMessage } from './history-repository.js';
export { flushTurn, flushTurns, findRun, runSpansOf } from './turn-repository.js';
export { TurnFlushes, TURN_FLUSHES, type TurnFlushesOptions } from './turn-flushes.js';
export { appendRunSpans, latestRunIdOf } from './append-run-spans.js';
export type { TurnMessage, TurnPerson, TurnRecord, TurnRun } from './turn-record.js';
export { saveSummary, latestSummary } from './summary-repository.js';
export { sessionStats, type SessionStats } from './session-stats.js';
export * from './schema/index.js';
export {
  approvePairing,
  isApprovedSender,
  pendingPairings,
  requestPairing,
  type ApprovalResult,
  type NewPairingRequest,
  type PairingLimits,
  type PairingRequestResult,
} from './pairing-repository.js';
export { isPermanentStoreError } from './store-errors.js';
export * from './console/index.js';
