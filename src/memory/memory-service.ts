import type { ConversationRef } from '../core/inbound-message.js';
import type { Logger } from '../observability/logger.js';
import type { StoreDatabase } from '../store/database.js';
import { forgetMemory, listMemories, rememberMemory, searchMemories, type Memory, type RememberResult } from './memory-repository.js';
import { memoryScopeOf } from './memory-scope.js';
import { MEMORY_MAX_CHARS } from './memory-text.js';
import { allFit, memoryLine, selectPromptMemories } from './prompt-memories.js';
import { ToolError } from '../agent/tools/agent-tool.js';
import type { Embedder } from '../llm/embeddings.js';
import { detectVectorStore, type VectorStore } from './vector-store.js';
import { SizeBoundedLru } from '../core/size-bounded-lru.js';

/**
 * What the prompt memories this process keeps may take, in estimated bytes, the least recently used scope dropped
 * first. Most scopes hold none: such an entry is about 150 bytes (its key and the shared empty list), so some
 * 100,000 chats fit; a scope whose memories fill the prompt's section takes some 4 KB.
 */
export const PROMPT_CACHE_BYTES = 16 * 2 ** 20;
const NO_MEMORIES: readonly Memory[] = Object.freeze([]);

/**
 * Memory as the tools, commands, prompt and flush use it; one per process. The prompt's memories of a scope that
 * all fit the section (most scopes: none at all) are kept here, so a turn reads nothing; a change in any process
 * (`onChange`, published to the others) drops them.
 */
export class MemoryService {
  #semantic: { embedder: Embedder; vectors: VectorStore } | undefined;
  /** scope → every memory (they all fit the prompt's section), or `search` (too many: chosen by each turn's text). */
  readonly #prompt: SizeBoundedLru<readonly Memory[] | 'search'>;

  constructor(
    private readonly db: StoreDatabase,
    private readonly logger: Logger,
    /** Told of every change of a scope's memories (another process drops its copy). */
    private readonly onChange?: (scope: string) => void,
    promptCacheBytes = PROMPT_CACHE_BYTES,
  ) {
    this.#prompt = new SizeBoundedLru(promptCacheBytes);
  }

  /** Another process changed this scope's memories (or, without a scope, this process may have missed some). */
  dropCached(scope?: string): void {
    if (scope === undefined) this.#prompt.clear();
    else this.#prompt.delete(scope);
  }

  #changed(scope: string): void {
    this.#prompt.delete(scope);
    this.onChange?.(scope);
  }

  /**
   * EMBEDDING_MODEL: memories are also embedded and searched by vector when pgvector is there; otherwise full text
   * only, said once here. Returns whether vector search is on.
   */
  async enableEmbeddings(embedder: Embedder): Promise<boolean> {
    const detected = await detectVectorStore(this.db);
    if ('reason' in detected) {
      this.logger.warn({ model: embedder.model, reason: detected.reason }, 'EMBEDDING_MODEL is set but pgvector is not available: memory is searched by full text only');
      return false;
    }
    this.#semantic = { embedder, vectors: detected.store };
    this.logger.info({ model: embedder.model }, 'memory is searched by embeddings (pgvector) and full text');
    return true;
  }

  scopeOf(conversation: Pick<ConversationRef, 'channel' | 'accountId' | 'chatId' | 'chatType'>, userId: string): string {
    return memoryScopeOf(conversation, userId);
  }

  async remember(scope: string, text: string): Promise<RememberResult> {
    const trimmed = text.trim();
    if (trimmed === '') throw new ToolError('Nothing to remember: the text is empty.');
    if (trimmed.length > MEMORY_MAX_CHARS) throw new ToolError(`A memory is at most ${MEMORY_MAX_CHARS} characters; save a shorter fact.`);
    const result = await rememberMemory(this.db, scope, trimmed);
    this.#changed(scope);
    this.logger.debug({ scope, id: result.memory.id, kind: result.kind }, 'memory stored');
    if (result.kind !== 'duplicate') await this.#embed(result.memory);
    return result;
  }

  recall(scope: string, query: string): Promise<Memory[]> {
    return this.#search(scope, query, 10);
  }

  /** Vector matches first (when on), then full-text ones; a failing embedding call leaves full text alone. */
  async #search(scope: string, query: string, limit: number): Promise<Memory[]> {
    const byWords = await searchMemories(this.db, scope, query, limit);
    if (!this.#semantic) return byWords;
    try {
      const [embedding] = await this.#semantic.embedder.embed([query]);
      const byMeaning = await this.#semantic.vectors.nearest(scope, this.#semantic.embedder.model, embedding!, limit);
      const seen = new Set<number>();
      return [...byMeaning, ...byWords].filter((memory) => !seen.has(memory.id) && seen.add(memory.id)).slice(0, limit);
    } catch (error) {
      this.logger.warn({ err: error, scope }, 'vector search failed; using full text only for this query');
      return byWords;
    }
  }

  async #embed(memory: Memory): Promise<void> {
    if (!this.#semantic) return;
    try {
      const [embedding] = await this.#semantic.embedder.embed([memory.text]);
      await this.#semantic.vectors.save(memory.id, this.#semantic.embedder.model, embedding!);
    } catch (error) {
      this.logger.warn({ err: error, id: memory.id }, 'could not embed a memory; it is found by full text');
    }
  }

  list(scope: string): Promise<Memory[]> {
    return listMemories(this.db, scope);
  }

  async forget(scope: string, id: number): Promise<Memory | undefined> {
    const forgotten = await forgetMemory(this.db, scope, id);
    if (forgotten) this.#changed(scope);
    return forgotten;
  }

  /** The lines of the system prompt's memory section for a turn answering `query` (see prompt-memories.ts). */
  async promptLines(scope: string, query: string): Promise<string[]> {
    const known = this.#prompt.get(scope);
    if (Array.isArray(known)) return known.map(memoryLine);
    const all = await listMemories(this.db, scope);
    if (allFit(all)) {
      const kept = all.length === 0 ? NO_MEMORIES : all;
      this.#prompt.set(scope, kept, promptEntryBytes(scope, kept));
      return all.map(memoryLine);
    }
    this.#prompt.set(scope, 'search', promptEntryBytes(scope, 'search'));
    const relevant = await this.#search(scope, query, 20);
    return selectPromptMemories(all, relevant).map(memoryLine);
  }

  /** Facts from the memory flush, each through the same merge-not-pile path as `remember`. */
  async storeFlushed(scope: string, facts: string[]): Promise<number> {
    let added = 0;
    for (const fact of facts) {
      if (fact.length > MEMORY_MAX_CHARS) continue;
      const result = await rememberMemory(this.db, scope, fact);
      if (result.kind === 'duplicate') continue;
      added++;
      this.#changed(scope);
      await this.#embed(result.memory);
    }
    return added;
  }
}

/** A kept entry's size as estimated for PROMPT_CACHE_BYTES: the key, the map's slot, each memory's text and fields. */
export function promptEntryBytes(scope: string, entry: readonly Memory[] | 'search'): number {
  let bytes = 100 + scope.length;
  if (entry !== 'search') for (const memory of entry) bytes += 80 + 2 * memory.text.length;
  return bytes;
}
