// The workspace's prompt files (USER.md): read from the session's workspace into the system prompt.
export { contextFilesSection, CONTEXT_FILES } from './context-files.js';
