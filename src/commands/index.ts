export { createCommandHandler, type CommandDependencies, type CommandHandler, type SessionUsage } from './command-handler.js';
export { COMMAND_DESCRIPTIONS, parseCommand, type ChatCommand, type CommandName } from './parse-command.js';
