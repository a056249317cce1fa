export { createCommandHandler, type CommandDependencies, type CommandHandler } from './command-handler.js';
export { mcpStatusLine } from './mcp-status.js';
export type { SessionUsage } from '../usage/session-usage.js';
export { COMMAND_DESCRIPTIONS, parseCommand, type ChatCommand, type CommandName } from './parse-command.js';
export { findChoice, modelCommand, priceClassOf, type ModelAnswer, type ModelChoice, type ModelChoices } from './model-command.js';
