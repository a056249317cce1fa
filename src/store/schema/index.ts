export * from './sessions.js';
export * from './runs.js';
export * from './messages.js';
export * from './run-spans.js';
export * from './summaries.js';
export * from './access.js';
export * from './scheduled-tasks.js';
export * from './memories.js';
