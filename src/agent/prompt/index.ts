export { buildSystemPrompt, type SystemPromptOptions } from './build-system-prompt.js';
export { BUILT_IN_PERSONA, memorySection, type ChatContext } from './prompt-sections.js';
