export { buildSystemPrompt, buildSubagentPrompt, SUBAGENT_TASK_SECTION, type SystemPromptOptions, type SubagentPromptOptions } from './build-system-prompt.js';
export { BUILT_IN_PERSONA, memorySection, type ChatContext } from './prompt-sections.js';
export { ChatPromptCache, type ChatPromptOptions } from './chat-prompt-cache.js';
