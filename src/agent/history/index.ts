export { limitHistoryTurns, DEFAULT_HISTORY_TURNS } from './limit-history-turns.js';
export { pruneToolResults, CLEARED_TOOL_RESULT, type PruneOptions } from './prune-tool-results.js';
export { repairToolPairing, MISSING_TOOL_RESULT } from './repair-tool-pairing.js';
export { summaryPreamble, summaryPreambleLength, SUMMARY_MARKER, SUMMARY_ACKNOWLEDGEMENT } from './summary-preamble.js';
export { omittedMessageNote, withOmittedAsNotes } from './omitted-messages.js';
