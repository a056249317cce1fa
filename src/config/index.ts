export type * from './app-config.js';
export { inspectConfig, loadConfig, readDotEnv, type ConfigInspection, type LoadConfigOptions } from './load-config.js';
export { DEFAULT_CONFIG_FILE } from './config-file.js';
export { DEFAULT_AGENT_ID } from './merge-agents.js';
export { DEFAULT_ACCOUNT_NAME } from './merge-accounts.js';
export { ChatSettingsResolver, type ChatLocation, type ChatSettings } from './chat-settings.js';
