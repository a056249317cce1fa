export type * from './app-config.js';
export { loadConfig, readDotEnv } from './load-config.js';
