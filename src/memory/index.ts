export { MemoryService } from './memory-service.js';
export { createMemoryTools, parseMemoryId } from './memory-tools.js';
export { memoryCommand, forgetCommand } from './memory-commands.js';
export { memoryScopeOf } from './memory-scope.js';
export { selectPromptMemories, MEMORY_PROMPT_MAX_TOKENS } from './prompt-memories.js';
export { normalizeMemory, wordSimilarity, anyWordQuery } from './memory-text.js';
export type { Memory, RememberResult } from './memory-repository.js';
export { createMemoryFlush } from './flush-memory.js';
export { detectVectorStore, VectorStore } from './vector-store.js';
