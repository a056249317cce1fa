import type { ConversationRef } from '../core/inbound-message.js';
import type { Logger } from '../observability/logger.js';
import type { StoreDatabase } from '../store/database.js';
import { forgetMemory, listMemories, rememberMemory, searchMemories, type Memory, type RememberResult } from './memory-repository.js';
import { memoryScopeOf } from './memory-scope.js';
import { MEMORY_MAX_CHARS } from './memory-text.js';
import { memoryLine, selectPromptMemories } from './prompt-memories.js';
import { ToolError } from '../agent/tools/agent-tool.js';

/** Memory as the tools, commands, prompt and flush use it; one per process. */
export class MemoryService {
  constructor(
    private readonly db: StoreDatabase,
    private readonly logger: Logger,
  ) {}

  scopeOf(conversation: Pick<ConversationRef, 'channel' | 'accountId' | 'chatId' | 'chatType'>, userId: string): string {
    return memoryScopeOf(conversation, userId);
  }

  async remember(scope: string, text: string): Promise<RememberResult> {
    const trimmed = text.trim();
    if (trimmed === '') throw new ToolError('Nothing to remember: the text is empty.');
    if (trimmed.length > MEMORY_MAX_CHARS) throw new ToolError(`A memory is at most ${MEMORY_MAX_CHARS} characters; save a shorter fact.`);
    const result = await rememberMemory(this.db, scope, trimmed);
    this.logger.debug({ scope, id: result.memory.id, kind: result.kind }, 'memory stored');
    return result;
  }

  recall(scope: string, query: string): Promise<Memory[]> {
    return searchMemories(this.db, scope, query);
  }

  list(scope: string): Promise<Memory[]> {
    return listMemories(this.db, scope);
  }

  forget(scope: string, id: number): Promise<Memory | undefined> {
    return forgetMemory(this.db, scope, id);
  }

  /** The lines of the system prompt's memory section for a turn answering `query` (see prompt-memories.ts). */
  async promptLines(scope: string, query: string): Promise<string[]> {
    const all = await listMemories(this.db, scope);
    if (all.length === 0) return [];
    const relevant = await searchMemories(this.db, scope, query, 20);
    return selectPromptMemories(all, relevant).map(memoryLine);
  }

  /** Facts from the memory flush, each through the same merge-not-pile path as `remember`. */
  async storeFlushed(scope: string, facts: string[]): Promise<number> {
    let added = 0;
    for (const fact of facts) {
      if (fact.length > MEMORY_MAX_CHARS) continue;
      if ((await rememberMemory(this.db, scope, fact)).kind !== 'duplicate') added++;
    }
    return added;
  }
}
