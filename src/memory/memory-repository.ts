import { and, asc, eq, sql } from 'drizzle-orm';
import { rowsOf, runStatement, type StoreDatabase } from '../store/database.js';
import { memories } from '../store/schema/memories.js';
import { anyWordQuery, normalizeMemory, SIMILAR_WORDS_RATIO, wordSimilarity } from './memory-text.js';

export interface Memory {
  id: number;
  text: string;
  createdAt: Date;
}

export type RememberResult = { kind: 'added' | 'duplicate' | 'updated'; memory: Memory };

/** More than this many memories in one scope are not compared for near-duplicates one by one (exact ones still merge). */
const SIMILARITY_SCAN_LIMIT = 500;

/**
 * Stores a memory, merging instead of piling up: the same text (normalized) is kept once, and a near-duplicate
 * (most words shared) is replaced by the newer wording, keeping its id and place.
 */
export async function rememberMemory(db: StoreDatabase, scope: string, text: string): Promise<RememberResult> {
  const trimmed = text.trim();
  const normalized = normalizeMemory(trimmed);
  const existing = await db
    .select({ id: memories.id, text: memories.text, normalized: memories.normalized, createdAt: memories.createdAt })
    .from(memories)
    .where(eq(memories.scope, scope))
    .orderBy(asc(memories.createdAt), asc(memories.id))
    .limit(SIMILARITY_SCAN_LIMIT);
  const same = existing.find((row) => row.normalized === normalized);
  if (same) return { kind: 'duplicate', memory: { id: same.id, text: same.text, createdAt: same.createdAt } };
  const similar = existing
    .map((row) => ({ row, similarity: wordSimilarity(row.text, trimmed) }))
    .filter(({ similarity }) => similarity >= SIMILAR_WORDS_RATIO)
    .sort((a, b) => b.similarity - a.similarity)[0];
  if (similar) {
    const [updated] = await db
      .update(memories)
      .set({ text: trimmed, normalized, updatedAt: new Date() })
      .where(eq(memories.id, similar.row.id))
      .returning({ id: memories.id, text: memories.text, createdAt: memories.createdAt })
      .catch(async (error: unknown) => {
        // another process stored this exact wording meanwhile: that row is the memory
        const raced = await findByNormalized(db, scope, normalized);
        if (!raced) throw error;
        return [raced];
      });
    return { kind: 'updated', memory: updated! };
  }
  const [inserted] = await db
    .insert(memories)
    .values({ scope, text: trimmed, normalized })
    .onConflictDoNothing({ target: [memories.scope, memories.normalized] })
    .returning({ id: memories.id, text: memories.text, createdAt: memories.createdAt });
  if (inserted) return { kind: 'added', memory: inserted };
  const raced = await findByNormalized(db, scope, normalized);
  return { kind: 'duplicate', memory: raced! };
}

async function findByNormalized(db: StoreDatabase, scope: string, normalized: string): Promise<Memory | undefined> {
  const [row] = await db
    .select({ id: memories.id, text: memories.text, createdAt: memories.createdAt })
    .from(memories)
    .where(and(eq(memories.scope, scope), eq(memories.normalized, normalized)));
  return row;
}

/** The scope's memories in the order they were made (a stable order: the prompt section stays byte-identical). */
export async function listMemories(db: StoreDatabase, scope: string, limit = 1_000): Promise<Memory[]> {
  // read for every new chat's first turn: a statement of constant text, no query building
  const rows = await runStatement<{ id: number | string | bigint; text: string; created_at: Date | string }>(db, LIST_MEMORIES, [scope, limit]);
  return rows.map((row) => ({ id: Number(row.id), text: row.text, createdAt: new Date(row.created_at) }));
}

const LIST_MEMORIES = 'select id, text, created_at from memories where scope = $1::text order by created_at asc, id asc limit $2::integer';

/** Full-text search: memories sharing words (or word prefixes) with the query, most relevant first. */
export async function searchMemories(db: StoreDatabase, scope: string, query: string, limit = 10): Promise<Memory[]> {
  const tsquery = anyWordQuery(query);
  if (!tsquery) return [];
  const rows = rowsOf<{ id: string | number; text: string; created_at: string | Date }>(
    await db.execute(sql`
      select id, text, created_at from memories
      where scope = ${scope} and search @@ to_tsquery('simple', ${tsquery})
      order by ts_rank(search, to_tsquery('simple', ${tsquery})) desc, created_at desc, id desc
      limit ${limit}`),
  );
  return rows.map((row) => ({ id: Number(row.id), text: row.text, createdAt: new Date(row.created_at) }));
}

/** Deletes for real; only within the scope, so one chat cannot delete another's memories by guessing ids. */
export async function forgetMemory(db: StoreDatabase, scope: string, id: number): Promise<Memory | undefined> {
  const [deleted] = await db
    .delete(memories)
    .where(and(eq(memories.scope, scope), eq(memories.id, id)))
    .returning({ id: memories.id, text: memories.text, createdAt: memories.createdAt });
  return deleted;
}
